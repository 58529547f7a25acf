"""[Where] declined: tail duplication does not take a branch inside a loop (the branch would run
on a later pass after names bound on earlier passes, which the check of what is bound before
the branch does not follow). From Lightning-AI/torchmetrics:
src/torchmetrics/utilities/compute.py: _auc_compute (the direction a Python float), run over
the candidate curves until the first non-empty one."""
import torch
from torch import Tensor


def ENTRY(xs: Tensor, y: Tensor) -> Tensor:
    for x in xs:
        if x.numel() < 2:
            continue
        dx = x[1:] - x[:-1]
        if (dx < 0).any():
            direction = -1.0
        else:
            direction = 1.0
        return torch.trapz(y, x) * direction
    return torch.zeros(())


torch.manual_seed(0)
INPUTS = [
    (torch.tensor([[0.0, 0.25, 0.5, 1.0]]), torch.rand(4)),
    (torch.tensor([[1.0, 0.5, 0.5, 0.0]]), torch.rand(4)),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "tail duplication: the branch is inside a loop")]

torch.compile(ENTRY)  # traced: an entry point of the mender
