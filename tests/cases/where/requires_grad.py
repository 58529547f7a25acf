"""[Where] Under autograd, branch values that require grad keep the Python branch (the
"double where" NaN-gradient hazard), so the break stays and gradients stay exact.
Run with gradients enabled (GRAD = True)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.tensor([1.0, -2.0]))

    def forward(self, x: torch.Tensor):
        h = x * self.weight
        if h.sum() > 0:
            y = h.sqrt()
        else:
            y = h * 0
        return y


GRAD = True
INPUTS = [(torch.tensor([4.0, -1.0]),), (torch.tensor([-4.0, 1.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
