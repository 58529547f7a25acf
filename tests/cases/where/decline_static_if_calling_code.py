"""declined: a static if nested in a tensor branch that calls a submodule (torch.cond's
branch functions are written from the branches' assignments, which the static if's sides
are not)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor, shift: bool):
        y = x * 2
        if y.mean() > 0:
            if shift:
                y = self.proj(y)
            else:
                y = y - 1
        return y


torch.manual_seed(0)
INPUTS = [(torch.rand(3, 4), True), (torch.rand(3, 4), False), (-torch.rand(3, 4), True)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "static if nested in a tensor branch that calls code")]
