"""[Where] declined: a raising leaf in a tail plan whose tail indexes (`y[idx]`, IndexError past
the end, which sema's purity allows): each side runs the tail ahead of the raising leaf's
guard, and compiled, Dynamo raises the IndexError while tracing, where the original raises
ValueError first and never indexes. From Lightning-AI/torchmetrics:
src/torchmetrics/utilities/compute.py: _auc_compute, with the area up to a given point."""
import torch
from torch import Tensor


def ENTRY(x: Tensor, y: Tensor, idx: int) -> Tensor:
    with torch.no_grad():
        dx = x[1:] - x[:-1]
        if (dx < 0).any():
            if (dx <= 0).all():
                direction = -1.0
            else:
                raise ValueError("The `x` tensor is neither increasing or decreasing.")
        else:
            direction = 1.0
        return (torch.trapz(y, x) - y[idx]) * direction


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.rand(4), 1),
    (torch.tensor([1.0, 0.5, 0.5, 0.0]), torch.rand(4), 2),
    (torch.tensor([0.0, 0.75, 0.5, 1.0]), torch.rand(4), 9),  # raises ValueError, not IndexError
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined")]
EXPECTED_DECLINES = [
    ("GM101", "a branch raises, and the tail indexes `y[idx]`"),
    ("GM101", "tail duplication"),
]

torch.compile(ENTRY)  # traced: an entry point of the mender
