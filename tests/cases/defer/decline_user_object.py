"""[Defer] declined: printing a user object whose __str__ reads mutable state (its text
could differ at replay time)."""
import torch
from torch import nn


class Config:
    def __init__(self):
        self.calls = 0

    def __str__(self):
        return f"Config(calls={self.calls})"


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = Config()

    def forward(self, x: torch.Tensor):
        y = x + 1
        print(self.config, y)
        self.config.calls += 1
        return y * 2


INPUTS = [(torch.tensor([1.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM102", "declined")]
EXPECTED_DECLINES = [("GM102", "an instance of a class of this module")]
