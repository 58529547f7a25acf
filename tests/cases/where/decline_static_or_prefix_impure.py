"""[Where] declines `if self.bump() or t < 1:` where the static operand is a method that
changes state: the predicated form tests the flags first and its fallback `elif` tests them
again, which would call the method twice."""

import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def bump(self):
        self.calls += 1
        return False

    def forward(self, x):
        t = x.mean()
        if self.bump() or t < 1:
            x = x * 2
        return x


INPUTS = [(torch.full((2, 3), 0.5),), (torch.full((2, 3), 3.0),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "not pure")]
