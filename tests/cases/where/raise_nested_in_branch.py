"""[Where] a validation raise nested in a tensor branch, from Lightning-AI/torchmetrics:
src/torchmetrics/utilities/compute.py: _auc_compute (`if (dx < 0).any(): if (dx <= 0).all():
direction = -1.0 else: raise ValueError(...)`). The raising arm is a leaf that gives no value:
the area is selected from the other arms, and the raise becomes runtime.guard on its path,
`(dx < 0).any() and not (dx <= 0).all()`, inside the predicated form; the fallback raises as
written. Here the direction flips a tensor (torchmetrics' Python float, which torch.where
cannot select, is the peer program torchmetrics/auc_direction)."""
import torch


def ENTRY(x: torch.Tensor, y: torch.Tensor):
    dx = x[1:] - x[:-1]
    area = torch.trapz(y, x)
    if (dx < 0).any():
        if (dx <= 0).all():
            area = -area
        else:
            raise ValueError(
                "The `x` tensor is neither increasing or decreasing. Try setting the reorder argument to `True`."
            )
    return area


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.rand(4)),  # increasing
    (torch.tensor([1.0, 0.5, 0.5, 0.0]), torch.rand(4)),  # decreasing
    (torch.tensor([0.0, 0.75, 0.5, 1.0]), torch.rand(4)),  # neither: raises
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
