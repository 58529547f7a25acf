"""[Where] declined: a branch reads an attribute after storing it. The rewrite computes every
value before it stores, so the read would see the value from before the if."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("low", torch.zeros(2))
        self.register_buffer("high", torch.ones(2))

    def forward(self, x):
        if x.sum() > 0:
            self.low = self.low + x
            self.high = self.low * 2
        else:
            self.low = self.low - x
            self.high = self.high - x
        return self.low + self.high


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "after storing it")]
