"""[Where] declined: a branch reads `y`, bound inside `with contextlib.suppress(...)`: an
exception in the body is swallowed and the with statement left with `y` unbound, where the
rewrite would read it whichever side is taken and the original only on the side that reads
it."""
import contextlib

import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor):
        scale = x.new_ones(())
        with contextlib.suppress(ZeroDivisionError):
            scale = x.abs().max() * 2
            y = self.lin(x)
        if scale > 1.0:
            y = y / scale
        return y


torch.manual_seed(0)
INPUTS = [(torch.randn(3, 4) * 10.0,), (torch.randn(3, 4) * 0.01,)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "not bound before the if")]
