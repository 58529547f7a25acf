"""Ultralytics' YOLO dataset label check, run by `YOLODataset.get_labels` when the trainer
builds its datasets: the class, box and segment counts of all the images' labels are summed;
a segment, OBB or semantic dataset whose box and segment counts differ raises ValueError (the
message names the task), a detect dataset with some segments logs a warning
(`LOGGER.warning(...)`) and drops every image's segments, and a dataset without any class
labels logs that the labels are missing. The dataset is reduced to the attributes the check
reads (its task flags and formatter class); the label arrays (numpy in the project) are
tensors, and the step, like `get_labels` reading its cache, hands fresh label dicts to the check
and returns the boxes and the segments kept. The mixed-dataset warning of the first input
breaks plain torch.compile."""

import logging

import torch

ORIGIN = "ultralytics/ultralytics: ultralytics/data/dataset.py: YOLODataset.verify_labels"
CATEGORY = "defer"

LOGGER = logging.getLogger(__name__)
HELP_URL = "See https://docs.ultralytics.com/datasets for dataset formatting guidance."


class Format:
    pass


class SemanticFormat(Format):
    pass


class YOLODataset:
    format_class = Format

    def __init__(self, task="detect"):
        self.use_segments = task == "segment"
        self.use_keypoints = task == "pose"
        self.use_obb = task == "obb"

    def verify_labels(self, labels, cache_path):
        # Check if the dataset is all boxes or all segments
        lengths = ((len(lb["cls"]), len(lb["bboxes"]), len(lb["segments"])) for lb in labels)
        len_cls, len_boxes, len_segments = (sum(x) for x in zip(*lengths))
        if (self.use_segments or self.use_obb or self.format_class is SemanticFormat) and len_boxes != len_segments:
            task = "OBB" if self.use_obb else "Semantic" if self.format_class is SemanticFormat else "Segment"
            raise ValueError(
                f"{task} dataset requires equal numbers of boxes and segments, but got len(segments) = "
                f"{len_segments}, len(boxes) = {len_boxes}. Please supply {'an OBB' if self.use_obb else 'a segment'} "
                "dataset, not a detect dataset."
            )
        if len_segments and len_boxes != len_segments:
            LOGGER.warning(
                f"Box and segment counts should be equal, but got len(segments) = {len_segments}, "
                f"len(boxes) = {len_boxes}. To resolve this only boxes will be used and all segments will be removed. "
                "To avoid this please supply either a detect or segment dataset, not a detect-segment mixed dataset."
            )
            for lb in labels:
                lb["segments"] = []
        if len_cls == 0:
            LOGGER.warning(f"Labels are missing or empty in {cache_path}, training may not work correctly. {HELP_URL}")


class SemanticDataset(YOLODataset):
    format_class = SemanticFormat


DATASETS = {"detect": YOLODataset("detect"), "segment": YOLODataset("segment"), "obb": YOLODataset("obb"),
            "semantic": SemanticDataset("segment")}


def get_labels(task, bboxes, segments, cache_path):
    labels = [
        {"cls": torch.zeros(len(b), 1), "bboxes": b, "segments": list(s)} for b, s in zip(bboxes, segments)
    ]
    DATASETS[task].verify_labels(labels, cache_path)
    kept = [seg for lb in labels for seg in lb["segments"]]
    return torch.cat([lb["bboxes"] for lb in labels]), kept


def _segments(n):
    return [torch.rand(6, 2) for _ in range(n)]


ENTRY = get_labels
torch.manual_seed(0)
INPUTS = [
    # a detect dataset where one image has segments: warned, and the segments are dropped
    ("detect", [torch.rand(2, 4), torch.rand(3, 4)], [_segments(2), []], "coco8/labels/train.cache"),
    ("detect", [torch.rand(2, 4), torch.rand(1, 4)], [[], []], "coco8/labels/train.cache"),
    ("segment", [torch.rand(2, 4), torch.rand(1, 4)], [_segments(2), _segments(1)], "coco8-seg/labels/train.cache"),
    # no labels at all
    ("detect", [torch.zeros(0, 4), torch.zeros(0, 4)], [[], []], "empty/labels/train.cache"),
    # box and segment counts differ where segments are required
    ("segment", [torch.rand(2, 4), torch.rand(3, 4)], [_segments(2), []], "coco8-seg/labels/train.cache"),
    ("obb", [torch.rand(3, 4)], [_segments(1)], "dota8/labels/train.cache"),
    ("semantic", [torch.rand(2, 4)], [[]], "masks/labels/train.cache"),
]
