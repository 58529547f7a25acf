"""Ultralytics' grounding dataset (the YOLO-World / YOLOE text-grounding data, built by the
world trainer from a JSON annotation file): `GroundingDataset.get_labels` checks the labels it
loaded with `_verify_instance_counts`, which sums the boxes of all the images
(`label["bboxes"].shape[0]`) and, for the four known grounding datasets (recognised by name in
the JSON file's path, first match wins), asserts the total equals the published count; any other
file logs that the verification is skipped (`LOGGER.warning(...)`). The dataset is reduced to
its JSON file name; the label arrays (numpy in the project) are tensors, and the step hands the
loaded labels to the check and returns the mean box. The skip warning of the first input breaks
plain torch.compile. The second input is one known dataset at its full count (640704 boxes,
about 10 MB) so that the passing branch runs."""

import logging
from typing import Any

import torch

ORIGIN = "ultralytics/ultralytics: ultralytics/data/dataset.py: GroundingDataset._verify_instance_counts"
CATEGORY = "defer"

LOGGER = logging.getLogger(__name__)


class GroundingDataset:
    def __init__(self, json_file: str = ""):
        self.json_file = json_file

    def _verify_instance_counts(self, labels: list[dict[str, Any]]) -> None:
        """Verify instance counts for known grounding datasets."""
        expected_counts = {
            "final_mixed_train_no_coco_segm": 3662412,
            "final_mixed_train_no_coco": 3681235,
            "final_flickr_separateGT_train_segm": 638214,
            "final_flickr_separateGT_train": 640704,
        }

        instance_count = sum(label["bboxes"].shape[0] for label in labels)
        for data_name, count in expected_counts.items():
            if data_name in self.json_file:
                assert instance_count == count, f"'{self.json_file}' has {instance_count} instances, expected {count}."
                return
        LOGGER.warning(f"Skipping instance count verification for unrecognized dataset '{self.json_file}'")


def get_labels(json_file, bboxes):
    dataset = GroundingDataset(json_file)
    labels = [{"bboxes": b, "texts": [["object"]]} for b in bboxes]
    dataset._verify_instance_counts(labels)
    return torch.cat([label["bboxes"] for label in labels]).mean(0)


ENTRY = get_labels
torch.manual_seed(0)
INPUTS = [
    ("datasets/custom/annotations/grounding_train.json", [torch.rand(3, 4), torch.rand(2, 4)]),
    # Flickr30k at its published count: the assertion holds
    ("datasets/flickr/annotations/final_flickr_separateGT_train.json",
     [torch.rand(320352, 4), torch.rand(320352, 4)]),
    # a known dataset name with the wrong count
    ("datasets/flickr/annotations/final_flickr_separateGT_train_segm.json", [torch.rand(3, 4), torch.rand(4, 4)]),
    ("datasets/mixed_grounding/annotations/final_mixed_train_no_coco.json", [torch.rand(5, 4)]),
]
