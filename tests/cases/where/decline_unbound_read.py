"""[Where] declined: a branch reads a local that only one earlier path binds; evaluating
both branches would raise UnboundLocalError where the original takes the other branch."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x, use_gate=False):
        if use_gate:
            gate = torch.sigmoid(x)
        h = self.lin(x)
        if h.sum() > 100:
            y = h * gate
        else:
            y = h
        return y


INPUTS = [(torch.ones(2),), (torch.ones(2), True)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "may be unbound before the if")]
