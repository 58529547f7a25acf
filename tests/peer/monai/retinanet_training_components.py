"""MONAI's RetinaNet detector, training forward: before running the network it checks that a
matcher was set (`raise AttributeError` otherwise, by `hasattr`) and, in debug mode, warns
when no balanced sampler is set (`warnings.warn("No balanced sampler is used. ...")`), both
on the detector's configuration. Detectors configured three ways are the inputs. The warning
is issued before the graph's first operation, and Dynamo's explain reports no break for it
(with `fullgraph=True` it fails on it)."""

import warnings

import torch
from torch import nn

ORIGIN = "Project-MONAI/MONAI: monai/apps/detection/networks/retinanet_detector.py: RetinaNetDetector._check_detector_training_components"
CATEGORY = "no_break"


class Matcher:
    def __init__(self, fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=True):
        self.fg_iou_thresh = fg_iou_thresh
        self.bg_iou_thresh = bg_iou_thresh
        self.allow_low_quality_matches = allow_low_quality_matches


class BalancedPositiveNegativeSampler:
    def __init__(self, batch_size_per_image, positive_fraction):
        self.batch_size_per_image = batch_size_per_image
        self.positive_fraction = positive_fraction


class RetinaNetDetector(nn.Module):
    def __init__(self, spatial_dims=2, num_classes=3, debug=True):
        super().__init__()
        self.spatial_dims = spatial_dims
        self.num_classes = num_classes
        self.network = nn.Conv2d(1, num_classes + 2 * spatial_dims, 3, padding=1)
        self.debug = debug
        self.fg_bg_sampler = None
        self.cls_key = "classification"
        self.box_reg_key = "box_regression"

    def set_regular_matcher(self, fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=True):
        if fg_iou_thresh < bg_iou_thresh:
            raise ValueError(
                "Require fg_iou_thresh >= bg_iou_thresh. "
                f"Got fg_iou_thresh={fg_iou_thresh}, bg_iou_thresh={bg_iou_thresh}."
            )
        self.proposal_matcher = Matcher(fg_iou_thresh, bg_iou_thresh, allow_low_quality_matches=allow_low_quality_matches)

    def set_balanced_sampler(self, batch_size_per_image, positive_fraction):
        self.fg_bg_sampler = BalancedPositiveNegativeSampler(
            batch_size_per_image=batch_size_per_image, positive_fraction=positive_fraction
        )

    def _check_detector_training_components(self):
        """
        Check if self.proposal_matcher and self.fg_bg_sampler have been set for training.
        """
        if not hasattr(self, "proposal_matcher"):
            raise AttributeError(
                "Matcher is not set. Please refer to self.set_regular_matcher(*) or self.set_atss_matcher(*)."
            )
        if self.fg_bg_sampler is None and self.debug:
            warnings.warn(
                "No balanced sampler is used. Negative samples are likely to "
                "be much more than positive samples. Please set balanced samplers with self.set_balanced_sampler(*) "
                "or self.set_hard_negative_sampler(*), "
                "or set classification loss function as Focal loss with self.set_cls_loss(*)"
            )

    def forward(self, input_images):
        # 1. Check if input arguments are valid
        if self.training:
            self._check_detector_training_components()

        # 3. Generate network outputs.
        head_outputs = self.network(input_images)
        return {
            self.cls_key: head_outputs[:, : self.num_classes],
            self.box_reg_key: head_outputs[:, self.num_classes :],
        }


def train_forward(detector, input_images):
    detector.train()
    return detector(input_images)


torch.manual_seed(0)
_no_sampler = RetinaNetDetector()
_no_sampler.set_regular_matcher(0.5, 0.4)
_balanced = RetinaNetDetector()
_balanced.set_regular_matcher(0.5, 0.4)
_balanced.set_balanced_sampler(batch_size_per_image=8, positive_fraction=0.5)
_no_matcher = RetinaNetDetector()

ENTRY = train_forward
INPUTS = [
    (_no_sampler, torch.randn(2, 1, 4, 4)),
    (_balanced, torch.randn(2, 1, 4, 4)),
    (_no_matcher, torch.randn(2, 1, 4, 4)),
]
