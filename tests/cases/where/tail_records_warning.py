"""[Where] tail duplication with a branch that warns, from Lightning-AI/torchmetrics:
src/torchmetrics/utilities/compute.py: _auc_compute (the direction of `x` a Python float chosen
by `(dx < 0).any()`, the area `torch.trapz(y, x) * direction` inline), with the decreasing arm
warning as torchmetrics' curve functions do for degenerate inputs (`rank_zero_warn(...,
UserWarning)` in _binary_roc_compute; `warnings.warn` here). The warning is recorded with the
branch's condition and replayed after the compiled call only if it held; the tail runs before
the replay where the original runs it after the warning, which nothing observes (it is pure
and records nothing). Eagerly the original path runs, the warning issued in place. Inputs
drive both arms, decreasing with a repeated point, and a float64 `x`."""
import warnings

import torch
from torch import Tensor


def ENTRY(x: Tensor, y: Tensor) -> Tensor:
    with torch.no_grad():
        dx = x[1:] - x[:-1]
        if (dx < 0).any():
            warnings.warn("`x` is decreasing: the area is negated.", UserWarning)
            direction = -1.0
        else:
            direction = 1.0
        return torch.trapz(y, x) * direction


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.rand(4)),  # increasing
    (torch.tensor([1.0, 0.5, 0.5, 0.0]), torch.rand(4)),  # decreasing: warns
    (torch.tensor([1.0, 0.5, 0.0], dtype=torch.float64), torch.rand(3, dtype=torch.float64)),
    (torch.tensor([0.0, 0.5, 1.0], dtype=torch.float64), torch.rand(3, dtype=torch.float64)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM104", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
