"""[Defer] Several prints keep their order; module forward."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(2, 2)

    def forward(self, x: torch.Tensor):
        x = x * 2
        print("input", x)
        h = self.linear(x)
        print("hidden", h)
        out = h.tanh()
        print("output", out)
        return out


INPUTS = [(torch.tensor([[1.0, 2.0]]),)]
EXPECTED_BREAKS = (3, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM102", "defer"), ("GM102", "defer"), ("GM102", "defer")]
