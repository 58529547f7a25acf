"""Ultralytics' semantic segmentation dataset: `BaseDataset.__init__` calls `update_labels` with
the `classes` argument, and `SemanticDataset.update_labels` keeps it as an int32 array of pixel
classes to include; for a single-class (binary) dataset (`int(self.data.get("nc", 0)) == 1`) the
filter is dropped with a warning (`LOGGER.warning(...)`), and for a dataset with a synthetic
polygon background class (`bg_class_idx`) that class is appended so it stays supervised. When
an image's mask is loaded, pixels of the other classes become the ignore label 255. The dataset
is reduced to its `data` dict; the step builds it, applies `update_labels` and then the mask
filter of `get_image_and_label` to a small mask (a tensor here, a numpy array in the project).
The binary-dataset warning of the first input breaks plain torch.compile."""

import logging

import numpy as np
import torch

ORIGIN = "ultralytics/ultralytics: ultralytics/data/dataset.py: SemanticDataset.update_labels"
CATEGORY = "defer"

LOGGER = logging.getLogger(__name__)


class SemanticDataset:
    def __init__(self, data: dict):
        self.data = data
        self.include_class = None

    def update_labels(self, include_class: list[int] | None) -> None:
        """Keep selected pixel classes and synthetic polygon background; ignore other classes (255) on load."""
        self.include_class = None if include_class is None else np.asarray(include_class, dtype=np.int32).reshape(-1)
        if self.include_class is not None and int(self.data.get("nc", 0)) == 1:
            LOGGER.warning(
                "'classes' filtering is ignored for single-class (binary) semantic segmentation: keeping only "
                "the sole class would discard all background supervision."
            )
            self.include_class = None
        elif self.include_class is not None and self.data.get("bg_class_idx"):
            self.include_class = np.append(self.include_class, self.data["bg_class_idx"])

    def filter_mask(self, mask):
        if self.include_class is not None:  # keep only selected classes; remap the rest to the ignore label
            mask[~torch.isin(mask, torch.from_numpy(self.include_class).to(mask.dtype))] = 255
        return mask


def load_mask(mask, classes, nc, bg_class_idx):
    data = {"nc": nc, "names": {i: f"class{i}" for i in range(nc)}}
    if bg_class_idx is not None:
        data["bg_class_idx"] = bg_class_idx
    dataset = SemanticDataset(data)
    dataset.update_labels(include_class=classes)
    return dataset.filter_mask(mask)


ENTRY = load_mask
torch.manual_seed(0)
INPUTS = [
    # a binary dataset: the class filter is dropped with a warning
    (torch.randint(0, 2, (4, 4), dtype=torch.uint8), [1], 1, None),
    (torch.randint(0, 4, (4, 4), dtype=torch.uint8), [1, 2], 4, None),
    # a polygon dataset: its background class is kept too
    (torch.randint(0, 5, (4, 4), dtype=torch.uint8), [1, 2], 5, 4),
    # background index 0 is not appended
    (torch.randint(0, 4, (4, 4), dtype=torch.uint8), [2], 4, 0),
    # no filter
    (torch.randint(0, 4, (4, 4), dtype=torch.uint8), None, 4, None),
]
