"""[Where] tail duplication in the else block of a static test, from Lightning-AI/torchmetrics:
src/torchmetrics/utilities/compute.py: _auc_compute, with its `reorder` test written as an
if/else (sorted points are increasing by construction and need no direction check) and the
integral inline (`torch.trapz(y, x) * direction`, where torchmetrics calls
`_auc_compute_without_check`). The direction is a Python float chosen by a tensor test; the
rest of the else block ends in `return`, so control leaves the block only through it, and the
nested function is defined and called there. Inputs drive both directions, the sorted path,
and a decreasing float64 `x`."""
import torch
from torch import Tensor


def ENTRY(x: Tensor, y: Tensor, reorder: bool = False) -> Tensor:
    if reorder:
        x, x_idx = torch.sort(x, stable=True)
        return torch.trapz(y[x_idx], x)
    else:
        dx = x[1:] - x[:-1]
        if (dx < 0).any():
            direction = -1.0
        else:
            direction = 1.0
        area = torch.trapz(y, x)
        return area * direction


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.rand(4)),  # increasing
    (torch.tensor([1.0, 0.5, 0.5, 0.0]), torch.rand(4)),  # decreasing
    (torch.tensor([0.0, 0.75, 0.5, 1.0]), torch.rand(4), True),  # sorted first
    (torch.tensor([1.0, 0.5, 0.0], dtype=torch.float64), torch.rand(3, dtype=torch.float64)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
