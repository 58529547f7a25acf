"""[Where] declined: a tail plan where one branch raises and another records a call (as for an
ordinary plan: the guard raises inside the compiled region, before the recorded call would be
replayed). From Lightning-AI/torchmetrics: src/torchmetrics/utilities/compute.py:
_auc_compute, with the decreasing arm warning before it negates the area."""
import warnings

import torch
from torch import Tensor


def ENTRY(x: Tensor, y: Tensor) -> Tensor:
    with torch.no_grad():
        dx = x[1:] - x[:-1]
        if (dx < 0).any():
            if (dx <= 0).all():
                warnings.warn("`x` is decreasing: the area is negated.", UserWarning)
                direction = -1.0
            else:
                raise ValueError("The `x` tensor is neither increasing or decreasing.")
        else:
            direction = 1.0
        return torch.trapz(y, x) * direction


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.rand(4)),
    (torch.tensor([1.0, 0.5, 0.5, 0.0]), torch.rand(4)),
    (torch.tensor([0.0, 0.75, 0.5, 1.0]), torch.rand(4)),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined"), ("GM104", "defer")]
EXPECTED_DECLINES = [
    ("GM101", "tail duplication: a branch raises and a branch records a call"),
    ("GM101", "tail duplication"),
]

torch.compile(ENTRY)  # traced: an entry point of the mender
