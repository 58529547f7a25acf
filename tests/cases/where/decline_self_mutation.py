"""declined: a branch mutates module state (self attribute and buffer)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("overflows", torch.zeros(()))

    def forward(self, x: torch.Tensor):
        if x.abs().max() > 10:
            self.overflows.add_(1)
            x = x / 10
        else:
            x = x * 1
        return x


INPUTS = [(torch.tensor([20.0, 1.0]),), (torch.tensor([2.0, 1.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "mutates state")]
