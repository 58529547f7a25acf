"""MONAI's RetinaNet detector, anchor matching in training: per image, the IoU of the ground
truth boxes with the anchors goes through torchvision's Matcher; in debug mode the best
overlaps are printed (`print(f"Max box overlap ...: {torch.max(match_quality_matrix,dim=1)[0]}.")`)
and when no anchor matched (`if torch.max(matched_idxs_per_image) < 0`) it warns with the
boxes in an f-string. An image without boxes gets -1 everywhere."""

import warnings

import torch
from torch import nn

ORIGIN = "Project-MONAI/MONAI: monai/apps/detection/networks/retinanet_detector.py: RetinaNetDetector.compute_anchor_matched_idxs"
CATEGORY = "mixed"

COMPUTE_DTYPE = torch.float32
TO_REMOVE = 0.0


def box_area(boxes):
    spatial_dims = boxes.shape[1] // 2
    area = boxes[:, spatial_dims] - boxes[:, 0] + TO_REMOVE
    for axis in range(1, spatial_dims):
        area = area * (boxes[:, axis + spatial_dims] - boxes[:, axis] + TO_REMOVE)
    return area


def _box_inter_union(boxes1_t, boxes2_t, compute_dtype=torch.float32):
    spatial_dims = boxes1_t.shape[1] // 2

    # compute area with float32
    area1 = box_area(boxes=boxes1_t.to(dtype=compute_dtype))  # (N,)
    area2 = box_area(boxes=boxes2_t.to(dtype=compute_dtype))  # (M,)

    # get the left top and right bottom points for the NxM combinations
    lt = torch.max(boxes1_t[:, None, :spatial_dims], boxes2_t[:, :spatial_dims]).to(dtype=compute_dtype)
    rb = torch.min(boxes1_t[:, None, spatial_dims:], boxes2_t[:, spatial_dims:]).to(dtype=compute_dtype)

    # compute size for the intersection region for the NxM combinations
    wh = (rb - lt + TO_REMOVE).clamp(min=0)  # (N,M,spatial_dims)
    inter = torch.prod(wh, dim=-1, keepdim=False)  # (N,M)

    union = area1[:, None] + area2 - inter
    return inter, union


def box_iou(boxes1, boxes2):
    box_dtype = boxes1.dtype
    inter, union = _box_inter_union(boxes1, boxes2, compute_dtype=COMPUTE_DTYPE)

    # compute IoU and convert back to original box_dtype
    iou_t = inter / (union + torch.finfo(COMPUTE_DTYPE).eps)  # (N,M)
    iou_t = iou_t.to(dtype=box_dtype)
    return iou_t


class Matcher:
    """torchvision.models.detection._utils.Matcher, without low-quality matches."""

    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2

    def __init__(self, high_threshold, low_threshold):
        self.high_threshold = high_threshold
        self.low_threshold = low_threshold

    def __call__(self, match_quality_matrix):
        if match_quality_matrix.numel() == 0:
            # empty targets or proposals not supported during training
            if match_quality_matrix.shape[0] == 0:
                raise ValueError("No ground-truth boxes available for one of the images during training")
            else:
                raise ValueError("No proposal boxes available for one of the images during training")

        # match_quality_matrix is M (gt) x N (predicted)
        # Max over gt elements (dim 0) to find best gt candidate for each prediction
        matched_vals, matches = match_quality_matrix.max(dim=0)

        # Assign candidate matches with low quality to negative (unassigned) values
        below_low_threshold = matched_vals < self.low_threshold
        between_thresholds = (matched_vals >= self.low_threshold) & (matched_vals < self.high_threshold)
        matches[below_low_threshold] = self.BELOW_LOW_THRESHOLD
        matches[between_thresholds] = self.BETWEEN_THRESHOLDS
        return matches


class RetinaNetDetector(nn.Module):
    def __init__(self, num_anchors_per_loc=1, debug=True):
        super().__init__()
        self.num_anchors_per_loc = num_anchors_per_loc
        self.debug = debug
        self.target_box_key = "boxes"
        self.box_overlap_metric = box_iou
        self.proposal_matcher = Matcher(0.5, 0.4)

    def compute_anchor_matched_idxs(self, anchors, targets, num_anchor_locs_per_level):
        matched_idxs = []
        for anchors_per_image, targets_per_image in zip(anchors, targets):
            # anchors_per_image: Tensor, targets_per_image: Dice[str, Tensor]
            if targets_per_image[self.target_box_key].numel() == 0:
                # if no GT boxes
                matched_idxs.append(
                    torch.full((anchors_per_image.size(0),), -1, dtype=torch.int64, device=anchors_per_image.device)
                )
                continue

            if isinstance(self.proposal_matcher, Matcher):
                # if torchvision matcher
                match_quality_matrix = self.box_overlap_metric(
                    targets_per_image[self.target_box_key].to(anchors_per_image.device), anchors_per_image
                )
                matched_idxs_per_image = self.proposal_matcher(match_quality_matrix)
            else:
                raise NotImplementedError(
                    "Currently support torchvision Matcher and monai ATSS matcher. Other types of matcher not supported. "
                    "Please override self.compute_anchor_matched_idxs(*) for your own matcher."
                )

            if self.debug:
                print(f"Max box overlap between anchors and gt boxes: {torch.max(match_quality_matrix,dim=1)[0]}.")

            if torch.max(matched_idxs_per_image) < 0:
                warnings.warn(
                    f"No anchor is matched with GT boxes. Please adjust matcher setting, anchor setting,"
                    " or the network setting to change zoom scale between network output and input images."
                    f"GT boxes are {targets_per_image[self.target_box_key]}."
                )

            matched_idxs.append(matched_idxs_per_image)
        return matched_idxs

    def forward(self, anchors, boxes0, boxes1):
        targets = [{self.target_box_key: boxes0}, {self.target_box_key: boxes1}]
        return self.compute_anchor_matched_idxs([anchors, anchors], targets, [anchors.shape[0]])


torch.manual_seed(0)
_anchors = torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0], [2.0, 0.0, 4.0, 2.0], [0.0, 2.0, 2.0, 4.0]])
ENTRY = RetinaNetDetector
INPUTS = [
    # both images matched
    (_anchors, torch.tensor([[0.0, 0.0, 2.0, 2.1]]), torch.tensor([[1.0, 1.0, 3.0, 3.0], [2.0, 0.0, 4.0, 2.0]])),
    # the second image's box lies apart from every anchor: warned
    (_anchors, torch.tensor([[0.0, 2.0, 2.0, 4.0]]), torch.tensor([[6.0, 6.0, 7.0, 7.0]])),
    # the first image has no boxes
    (_anchors, torch.zeros((0, 4)), torch.tensor([[2.0, 0.0, 4.0, 2.5]])),
]
