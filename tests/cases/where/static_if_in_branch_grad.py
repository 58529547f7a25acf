"""A static if nested in a tensor branch, in training (gradients compared): the values
require grad, so where_ok refuses (the unselected side's gradients) and the original branch
runs, break kept; no torch.cond of the branches (their functions would not hold the static
if's sides)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, x: torch.Tensor, shift: bool):
        y = x * self.w
        if y.mean() > 0:
            if shift:
                y = y + 1
            else:
                y = y * 3
        return y


GRAD = True
torch.manual_seed(0)
INPUTS = [
    (torch.rand(3, 4) + 5, True),
    (torch.rand(3, 4) + 5, False),
    (-torch.rand(3, 4) - 5, True),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
