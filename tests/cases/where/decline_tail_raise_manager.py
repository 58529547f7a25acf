"""[Where] declined: a raising leaf in a tail plan inside a `with` whose manager is not one of
torch's grad-mode or autocast managers, which may suppress the exception its block raises (its
exit sees it); the compiled guard raises only at the compile boundary, past that exit. From
Lightning-AI/torchmetrics: src/torchmetrics/utilities/compute.py: _auc_compute, under
`warnings.catch_warnings()` in place of `torch.no_grad()`."""
import warnings

import torch
from torch import Tensor


def ENTRY(x: Tensor, y: Tensor) -> Tensor:
    with warnings.catch_warnings():
        dx = x[1:] - x[:-1]
        if (dx < 0).any():
            if (dx <= 0).all():
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
EXPECTED_BREAKS = (1, 1)  # Dynamo gives up on the frame: all of it runs eagerly
EXPECTED_GRAPHS = (0, 0)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined")]
EXPECTED_DECLINES = [
    ("GM101", "a context manager that may suppress the exception"),
    ("GM101", "tail duplication"),
]

torch.compile(ENTRY)  # traced: an entry point of the mender
