"""[Where] declined: a branch stores in an attribute a tensor another name holds (`self.last
= x`, the input itself). Predicated, the attribute would hold a new tensor, not the caller's,
which a later in-place change of either would tell apart."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("last", torch.zeros(2))

    def forward(self, x):
        if x.sum() > 0:
            self.last = x
        else:
            self.last = -x
        x.mul_(2)
        return self.last + 1


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "held elsewhere")]
