"""[Where] tail duplication with a raising leaf, under `with torch.no_grad():`, from
Lightning-AI/torchmetrics: src/torchmetrics/utilities/compute.py: _auc_compute. The direction
of `x` is read from the data and is a Python float (`direction = -1.0` / `1.0`), so the rest of
the block, the trapezoid integral scaled by it (here inline, `torch.trapz(y, x) * direction`,
where torchmetrics calls `_auc_compute_without_check`), is a nested function each value-giving
leaf calls with its own direction, defined and called inside the `with` so that no_grad holds
where it runs. The arm that raises (`x` neither increasing nor decreasing) calls no tail: its
raise is runtime.guard on its path, `(dx < 0).any() and not (dx <= 0).all()`, and the fallback
raises as written. `reorder` is a static test before the branch. Inputs drive every leaf:
increasing, decreasing (with a repeated point), neither (raises ValueError), and neither with
`reorder=True` (sorted first: increasing), and a decreasing float64 `x`."""
import torch
from torch import Tensor


def ENTRY(x: Tensor, y: Tensor, reorder: bool = False) -> Tensor:
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
        return torch.trapz(y, x) * direction


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.rand(4)),  # increasing
    (torch.tensor([1.0, 0.5, 0.5, 0.0]), torch.rand(4)),  # decreasing
    (torch.tensor([0.0, 0.75, 0.5, 1.0]), torch.rand(4)),  # neither: raises
    (torch.tensor([0.0, 0.75, 0.5, 1.0]), torch.rand(4), True),  # sorted first
    (torch.tensor([1.0, 0.5, 0.0], dtype=torch.float64), torch.rand(3, dtype=torch.float64)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
