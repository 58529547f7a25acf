"""[Cond] checked: a branch that calls a submodule on an unannotated value, in training
(gradients compared): torch.cond under `runtime.tensors(h)`."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(4, 4)
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        h = self.inp(x)
        if h.mean() > 0:
            y = self.proj(h)
        else:
            y = h * 0.5
        return y.sum(dim=-1)


GRAD = True
INPUTS = [(torch.ones(2, 4),), (-torch.ones(2, 4) * 4,)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
EXPECTED_DECLINES = []
