"""torchvision's sigmoid focal loss: conditions only on Python arguments (`alpha >= 0`,
the reduction's name), so it does not break; an unknown reduction raises."""

import torch
import torch.nn.functional as F

ORIGIN = "pytorch/vision: torchvision/ops/focal_loss.py: sigmoid_focal_loss"
CATEGORY = "no_break"


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2, reduction="none"):
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)

    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss

    # Check reduction option and return loss accordingly
    if reduction == "none":
        pass
    elif reduction == "mean":
        loss = loss.mean()
    elif reduction == "sum":
        loss = loss.sum()
    else:
        raise ValueError(
            f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction modes: 'none', 'mean', 'sum'"
        )
    return loss


ENTRY = sigmoid_focal_loss
torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 2), torch.tensor([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]), 0.25, 2, "mean"),
    (torch.randn(3, 2), torch.tensor([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]), -1, 2, "sum"),
    (torch.randn(3, 2), torch.tensor([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]), 0.25, 2, "max"),
]
