"""[Cond] A branch calling a submodule becomes torch.cond (only one branch runs)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor):
        k = 3
        if x.sum() > 0:
            y = self.layer(x) * k
        else:
            y = x
        return y + 1


GRAD = True
INPUTS = [(torch.ones(2, 4),), (-torch.ones(2, 4),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
