"""detectron2's fast_rcnn_inference_single_image: predictions with non-finite boxes or
scores are dropped (`if not valid_mask.all(): boxes = boxes[valid_mask]`): boolean-mask
indexing, so the number of rows depends on the data. Not fixable by design."""

import torch

ORIGIN = "facebookresearch/detectron2: detectron2/modeling/roi_heads/fast_rcnn.py: fast_rcnn_inference_single_image"
CATEGORY = "out_of_scope"


def fast_rcnn_inference_single_image(boxes, scores, score_thresh):
    valid_mask = torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores).all(dim=1)
    if not valid_mask.all():
        boxes = boxes[valid_mask]
        scores = scores[valid_mask]

    scores = scores[:, :-1]
    num_bbox_reg_classes = boxes.shape[1] // 4
    # Convert to Boxes to use the `clip` function ...
    boxes = boxes.reshape(-1, 4).clamp(min=0.0, max=10.0)
    boxes = boxes.view(-1, num_bbox_reg_classes, 4)  # R x C x 4

    # 1. Filter results based on detection scores. It can make NMS more efficient
    #    by filtering out low-confidence detections.
    filter_mask = scores > score_thresh  # R x K
    return boxes, filter_mask


ENTRY = fast_rcnn_inference_single_image
torch.manual_seed(0)
INPUTS = [
    (torch.rand(3, 8) * 12, torch.rand(3, 3), 0.5),
    (torch.tensor([[1.0, 2.0, 3.0, float("inf"), 1.0, 1.0, 2.0, 2.0], [0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0]]),
     torch.rand(2, 3), 0.5),
]
