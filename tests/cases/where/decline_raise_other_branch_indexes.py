"""[Where] declined: a branch that raises beside a branch that indexes (`area - y[idx]`,
IndexError past the end, which sema's purity allows). The predicated form computes every
other branch's value ahead of the raising branch's guard, and compiled, Dynamo raises the
IndexError while tracing, where the original raises ValueError first and never indexes. From
Lightning-AI/torchmetrics: src/torchmetrics/utilities/compute.py: _auc_compute, the direction
check with the area up to a given point."""
import torch
from torch import Tensor


def ENTRY(x: Tensor, y: Tensor, idx: int) -> Tensor:
    dx = x[1:] - x[:-1]
    area = torch.trapz(y, x)
    if (dx < 0).any():
        if (dx <= 0).all():
            area = y[idx] - area
        else:
            raise ValueError("The `x` tensor is neither increasing or decreasing.")
    return area


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.rand(4), 1),
    (torch.tensor([1.0, 0.5, 0.5, 0.0]), torch.rand(4), 2),
    (torch.tensor([0.0, 0.75, 0.5, 1.0]), torch.rand(4), 9),  # raises ValueError, not IndexError
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined")]
EXPECTED_DECLINES = [
    ("GM101", "a branch raises, and another branch indexes `y[idx]`"),
    ("GM101", "a branch raises, and another branch indexes `y[idx]`"),
]

torch.compile(ENTRY)  # traced: an entry point of the mender
