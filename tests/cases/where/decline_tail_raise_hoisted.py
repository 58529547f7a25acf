"""[Where] declined: a raising leaf in a tail plan whose tail holds a value that reads nothing the
sides assign and is not pure as written (`float(self.scale)`): tail duplication evaluates it
once ahead of both sides, which would run before the raising leaf's guard, where the original
raises first and never evaluates it. From Lightning-AI/torchmetrics:
src/torchmetrics/utilities/compute.py: _auc_compute, in a module that scales the area by a
configured factor."""
import torch
from torch import Tensor, nn


class ENTRY(nn.Module):
    def __init__(self, scale=2):
        super().__init__()
        self.scale = scale

    def forward(self, x: Tensor, y: Tensor) -> Tensor:
        with torch.no_grad():
            dx = x[1:] - x[:-1]
            if (dx < 0).any():
                if (dx <= 0).all():
                    direction = -1.0
                else:
                    raise ValueError("The `x` tensor is neither increasing or decreasing.")
            else:
                direction = 1.0
            return torch.trapz(y, x) * direction * float(self.scale)


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.rand(4)),
    (torch.tensor([1.0, 0.5, 0.5, 0.0]), torch.rand(4)),
    (torch.tensor([0.0, 0.75, 0.5, 1.0]), torch.rand(4)),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined")]
EXPECTED_DECLINES = [
    ("GM101", "the tail evaluates `float(self.scale)` once ahead of both sides"),
    ("GM101", "tail duplication"),
]
