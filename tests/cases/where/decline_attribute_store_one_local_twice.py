"""[Where] declined: a branch stores one local in two attributes (`self.a = m; self.b = m`):
the original's attributes hold one tensor, so an in-place change through one (`self.a.mul_(3)`)
shows through the other; predicated stores would hold two copies."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("a", torch.zeros(2))
        self.register_buffer("b", torch.zeros(2))

    def forward(self, x):
        m = x * 2
        if x.sum() > 0:
            self.a = m
            self.b = m
        else:
            self.a = x + 1
            self.b = x - 1
        self.a.mul_(3)
        return self.b + 1


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "held elsewhere")]
