"""[Where] declined: a branch stores in an attribute a local holding a new tensor (`m = x *
2`), and the function changes that local after the if (`m.mul_(3)`): the original's
attribute holds `m` itself and sees the change; a predicated store would hold a copy."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("last", torch.zeros(2))

    def forward(self, x):
        m = x * 2
        if x.sum() > 0:
            self.last = m
        else:
            self.last = -x
        m.mul_(3)
        return self.last + 1


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "held elsewhere")]
