"""Branches predicated in training (gradients compared): a clamp of non-finite activations
(transformers' BART/T5 encoder layers) has finite local derivatives, so the zero gradient
torch.where sends into the unselected side stays zero: `where_ok(..., gradient_safe=True)`
selects with grad on. A square root (an infinite derivative at 0: 0 * inf is NaN) is not
selected with torch.where in training: torch.cond over the branches as written takes it
(cond_ok), which differentiates the selected side only."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x: torch.Tensor):
        h = x * self.w
        if not torch.isfinite(h).all():
            h = torch.clamp(h, min=-100.0, max=100.0)
        g = h.abs()
        if g.sum() > 1:
            g = g.sqrt()
        return h, g


GRAD = True
INPUTS = [
    (torch.tensor([1.0, -2.0, 0.5, 3.0]),),
    (torch.tensor([float("inf"), -2.0, 0.0, 0.1]),),
    (torch.tensor([0.01, 0.0, 0.02, 0.0]),),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where")] * 2
EXPECTED_DECLINES = []
