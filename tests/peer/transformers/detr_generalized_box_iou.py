"""DETR's loss helper: generalized IoU of two box sets, with an early check that the boxes
are in corner format (`if not (boxes1[:, 2:] >= boxes1[:, :2]).all(): raise ValueError(f"...
{boxes1}")`): a validation guard whose message formats the tensor itself."""

import torch

ORIGIN = "huggingface/transformers: src/transformers/loss/loss_for_object_detection.py: generalized_box_iou"
CATEGORY = "trap"


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def box_iou(boxes1, boxes2):
    area1 = box_area(boxes1)
    area2 = box_area(boxes2)
    left_top = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    right_bottom = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    width_height = (right_bottom - left_top).clamp(min=0)
    inter = width_height[:, :, 0] * width_height[:, :, 1]
    union = area1[:, None] + area2 - inter
    iou = inter / union
    return iou, union


def generalized_box_iou(boxes1, boxes2):
    # degenerate boxes gives inf / nan results
    # so do an early check
    if not (boxes1[:, 2:] >= boxes1[:, :2]).all():
        raise ValueError(f"boxes1 must be in [x0, y0, x1, y1] (corner) format, but got {boxes1}")
    if not (boxes2[:, 2:] >= boxes2[:, :2]).all():
        raise ValueError(f"boxes2 must be in [x0, y0, x1, y1] (corner) format, but got {boxes2}")
    iou, union = box_iou(boxes1, boxes2)

    top_left = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    bottom_right = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])

    width_height = (bottom_right - top_left).clamp(min=0)  # [N,M,2]
    area = width_height[:, :, 0] * width_height[:, :, 1]

    return iou - (area - union) / area


ENTRY = generalized_box_iou
INPUTS = [
    (torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 4.0]]), torch.tensor([[0.5, 0.5, 2.5, 2.0]])),
    (torch.tensor([[0.0, 0.0, 2.0, 2.0], [3.0, 1.0, 1.0, 4.0]]), torch.tensor([[0.5, 0.5, 2.5, 2.0]])),
    (torch.tensor([[0.0, 0.0, 2.0, 2.0]]), torch.tensor([[0.5, 0.5, 0.25, 2.0]])),
]
