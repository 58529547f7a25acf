"""[Cond] declined: a branch calls a helper that calls a method of a parameter the call
passes a Python number (`temperature.exp()` given `2.0`, which has no such method). The
helper's parameter is taken to be a tensor only where the call passes one, so torch.cond
is not used and the branch keeps its break (eagerly the original raises AttributeError on
that path, and so does the mended program)."""

import torch
from torch import nn


def sharpen(x, temperature):
    return x / temperature.exp()


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        if h.sum() > 1e9:
            h = sharpen(h, 2.0)
        return h.relu()


INPUTS = [(torch.ones(2, 4),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "branch value `sharpen(h, 2.0)` is not pure")]
