"""torchmetrics' area under a curve: the direction of `x` is read from the data (`if (dx <
0).any(): if (dx <= 0).all(): direction = -1.0 else: raise ValueError(...)`, `else: direction =
1.0`), and the Python float it picks scales the trapezoid integral: a branch on tensor values
that feeds arithmetic, nested with a guard."""

import torch
from torch import Tensor

ORIGIN = "Lightning-AI/torchmetrics: src/torchmetrics/utilities/compute.py: _auc_compute"
CATEGORY = "mixed"


def _auc_compute_without_check(x: Tensor, y: Tensor, direction: float, axis: int = -1) -> Tensor:
    """Compute area under the curve using the trapezoidal rule."""
    with torch.no_grad():
        auc_score: Tensor = torch.trapz(y, x, dim=axis) * direction
    return auc_score


def _auc_compute(x: Tensor, y: Tensor, reorder: bool = False) -> Tensor:
    """Compute area under the curve using the trapezoidal rule, checking the direction of x."""
    with torch.no_grad():
        if reorder:
            x, x_idx = torch.sort(x, stable=True)
            y = y[x_idx]

        dx = x[1:] - x[:-1]
        if (dx < 0).any():
            if (dx <= 0).all():
                direction = -1.0
            else:
                raise ValueError(
                    "The `x` tensor is neither increasing or decreasing. Try setting the reorder argument to `True`."
                )
        else:
            direction = 1.0
        return _auc_compute_without_check(x, y, direction)


ENTRY = _auc_compute
torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.rand(4)),
    (torch.tensor([1.0, 0.5, 0.5, 0.0]), torch.rand(4)),
    (torch.tensor([0.0, 0.75, 0.5, 1.0]), torch.rand(4)),
    (torch.tensor([0.0, 0.75, 0.5, 1.0]), torch.rand(4), True),
]
