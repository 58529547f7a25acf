"""[Where] A data-dependent branch in a module's forward, on a layer's output."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor):
        h = self.linear(x)
        if h.sum() > 0:
            out = torch.relu(h)
        else:
            out = torch.sigmoid(h)
        return out


INPUTS = [(torch.tensor([[1.0, 2.0, 3.0]]),), (torch.tensor([[-1.0, -2.0, -3.0]]),), (torch.zeros(2, 3),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
