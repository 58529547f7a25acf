"""[Defer] The print is in a helper the module's forward calls."""
import torch
from torch import nn


def report(name: str, t: torch.Tensor):
    print(name, t)


class ENTRY(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x * 3
        report("h", h)
        return h - 1


INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM102", "defer")]
