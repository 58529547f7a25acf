"""[Where] declined: an attribute stored by one branch only. Predicated, it would be stored
on every path (a new tensor where the original keeps the one it held)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("peak", torch.zeros(2))

    def forward(self, x):
        y = x * 2
        if x.sum() > 0:
            self.peak = torch.maximum(self.peak, x)
            y = x * 3
        return y, self.peak


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "do not all store")]
