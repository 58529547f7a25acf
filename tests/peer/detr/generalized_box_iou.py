"""DETR's generalized IoU, used by its Hungarian matcher and box loss: degenerate boxes are
checked first with asserts on tensor values (`assert (boxes1[:, 2:] >= boxes1[:, :2]).all()`),
then the IoU and the enclosing area give the [N, M] matrix. Dynamo traces the asserts (as
`torch._assert`) without a break, and a failing one raises RuntimeError("assertion error")
compiled."""

import torch

ORIGIN = "facebookresearch/detr: util/box_ops.py: generalized_box_iou"
CATEGORY = "no_break"


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


# modified from torchvision to also return the union
def box_iou(boxes1, boxes2):
    area1 = box_area(boxes1)
    area2 = box_area(boxes2)

    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])  # [N,M,2]
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])  # [N,M,2]

    wh = (rb - lt).clamp(min=0)  # [N,M,2]
    inter = wh[:, :, 0] * wh[:, :, 1]  # [N,M]

    union = area1[:, None] + area2 - inter

    iou = inter / union
    return iou, union


def generalized_box_iou(boxes1, boxes2):
    # degenerate boxes gives inf / nan results
    # so do an early check
    assert (boxes1[:, 2:] >= boxes1[:, :2]).all()
    assert (boxes2[:, 2:] >= boxes2[:, :2]).all()
    iou, union = box_iou(boxes1, boxes2)

    lt = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])

    wh = (rb - lt).clamp(min=0)  # [N,M,2]
    area = wh[:, :, 0] * wh[:, :, 1]

    return iou - (area - union) / area


torch.manual_seed(0)
ENTRY = generalized_box_iou
INPUTS = [
    (torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 4.0, 3.0]]), torch.tensor([[1.0, 0.0, 3.0, 2.0]])),
    # a degenerate predicted box: the first assert fails
    (torch.tensor([[2.0, 0.0, 1.0, 2.0]]), torch.tensor([[1.0, 0.0, 3.0, 2.0]])),
    # a degenerate target box: the second assert fails
    (torch.tensor([[0.0, 0.0, 2.0, 2.0]]), torch.tensor([[1.0, 3.0, 3.0, 2.0]])),
]
