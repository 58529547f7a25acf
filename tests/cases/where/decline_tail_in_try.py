"""[Where] declined: tail duplication does not take a branch inside a try statement (its
handlers would see a compiled guard's RuntimeError rather than the original exception, and
Dynamo gives up on a frame that breaks inside one). From Lightning-AI/torchmetrics:
src/torchmetrics/utilities/compute.py: _auc_compute (the direction a Python float), with the
integral's shape error caught and turned into NaN."""
import torch
from torch import Tensor


def ENTRY(x: Tensor, y: Tensor) -> Tensor:
    try:
        dx = x[1:] - x[:-1]
        if (dx < 0).any():
            direction = -1.0
        else:
            direction = 1.0
        return torch.trapz(y, x) * direction
    except RuntimeError:
        return torch.full((), float("nan"))


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([0.0, 0.25, 0.5, 1.0]), torch.rand(4)),
    (torch.tensor([1.0, 0.5, 0.5, 0.0]), torch.rand(4)),
]
EXPECTED_BREAKS = (1, 1)  # Dynamo gives up on the frame: all of it runs eagerly
EXPECTED_GRAPHS = (0, 0)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "tail duplication: the branch is inside a try statement")]

torch.compile(ENTRY)  # traced: an entry point of the mender
