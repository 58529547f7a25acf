"""Not a break: `if self.training` is a Python bool; left untouched."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.dropout = nn.Dropout(0.5)

    def forward(self, x: torch.Tensor):
        if self.training:
            x = self.dropout(x)
        else:
            x = x * 1
        return x


def make():
    return ENTRY().eval()


INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (0, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = []
