"""[Where] declined: the static part of the condition calls a method; a checked rewrite
would evaluate it a second time when its run-time check fails."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def enabled(self):
        self.calls += 1
        return True

    def forward(self, x):
        if self.enabled() and x.sum() > 0:
            x = x * 2
        return x + self.calls


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "evaluates it again")]
