"""[Where] The branch is in a helper function that forward calls (mend(obj) reaches it)."""
import torch
from torch import nn


def soft_cap(x: torch.Tensor, cap: float):
    if x.abs().max() > cap:
        x = torch.tanh(x / cap) * cap
    return x


class ENTRY(nn.Module):
    def forward(self, x: torch.Tensor):
        return soft_cap(x * 3, 5.0)


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([0.1, 0.2]),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where")]
