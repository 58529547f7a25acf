"""[Cond] declined: a branch calls a helper that calls a method of a parameter the call
does not pass (`weights.softmax(...)` with `weights=None` left to its default). A helper's
parameter is taken to be a tensor only where the call passes a tensor for it: here nothing
says it is one (it is None, and the helper would raise), so torch.cond is not used and the
branch keeps its break."""

import torch
from torch import nn


def pooled(x, weights=None):
    return (x * weights.softmax(-1)).sum(-1, keepdim=True)


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        if h.sum() > 1e9:
            h = pooled(h)
        return h.relu()


INPUTS = [(torch.ones(2, 4),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "branch value `pooled(h)` is not pure")]
