"""[Where] checked: a branch on a registered buffer, scaled by a float attribute (running
statistics, as in examples/model.py's `max_seen` and BatchNorm-style modules). The buffer is
checked; `self.eps` is a Python number and needs no check (the other operand is a tensor)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running_max", torch.tensor([0.5, 3.0, 1.0, 2.0]))
        self.eps = 1e-5

    def forward(self, x):
        y = x * 1.5
        if self.running_max.max() > 1:
            y = y / (self.running_max.max() + self.eps)
        return y


def make():
    module = ENTRY()
    return module


INPUTS = [(torch.ones(4),), (torch.arange(4.0),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
