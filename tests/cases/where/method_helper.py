"""[Where] + [Defer] A branch and a print in a helper method (self.method) of the module,
and a submodule class of the same file with its own branch."""
import torch
from torch import nn


class Gate(nn.Module):
    def forward(self, h: torch.Tensor):
        if h.max() > 1:
            h = h / h.max()
        return h


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = Gate()

    def normalise(self, x: torch.Tensor):
        if x.min() < 0:
            x = x - x.min()
        return x

    def forward(self, x: torch.Tensor):
        h = self.normalise(x)
        print("normalised", h)
        return self.gate(h)


INPUTS = [(torch.tensor([-1.0, 3.0]),), (torch.tensor([0.1, 0.5]),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (4, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where"), ("GM102", "defer")]
