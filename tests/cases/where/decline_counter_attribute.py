"""[Where] declined: a branch counts in a Python int attribute (`self.hits + 1`, not pure: torch.where
selects tensors only)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.hits = 0

    def forward(self, x: torch.Tensor):
        y = x
        if x.sum() > 0:
            self.hits = self.hits + 1
            y = x * 2
        return y


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "not pure")]
