"""[Scalar] captures a scalar whose name holds other values before it: transformers' DETR loss
(src/transformers/loss/loss_for_object_detection.py: ImageLoss.forward) binds `num_boxes` to
a count, then a tensor, then the `.item()` of its clamp, and divides each loss by it. The
held form declines a name assigned more than once; the captured read needs only the reads
after its assignment (outside a loop) to compute: two divisions, one graph."""
import torch


@torch.compile
def normalized_losses(loss_bbox: torch.Tensor, loss_giou: torch.Tensor, class_labels: torch.Tensor):
    # Compute the average number of target boxes across all nodes, for normalization purposes
    num_boxes = len(class_labels)
    num_boxes = torch.as_tensor([num_boxes], dtype=torch.float, device=loss_bbox.device)
    world_size = 1
    num_boxes = torch.clamp(num_boxes / world_size, min=1).item()
    return loss_bbox.sum() / num_boxes, loss_giou.sum() / num_boxes


ENTRY = normalized_losses.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [
    (torch.tensor([0.5, 1.5, 2.0]), torch.tensor([0.25, 0.75, 1.0]), torch.tensor([1, 2, 3])),
    (torch.tensor([0.5]), torch.tensor([0.25]), torch.tensor([], dtype=torch.int64)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM106", "scalar_capture")]
EXPECTED_DECLINES = []
