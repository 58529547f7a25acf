"""[Where] A branch on a registered buffer (running statistics)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running_max", torch.tensor([0.5, 3.0]))

    def forward(self, x: torch.Tensor):
        if self.running_max.max() > 1:
            y = x / self.running_max.max()
        else:
            y = x
        return y


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([4.0, -2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
