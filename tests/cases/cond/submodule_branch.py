"""[Cond] Branches that call submodules become torch.cond (only one branch runs)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.expert_a = nn.Linear(4, 4)
        self.expert_b = nn.Linear(4, 4)

    def forward(self, h: torch.Tensor):
        if h.mean() > 0:
            y = self.expert_a(h)
        else:
            y = self.expert_b(h)
        return y


INPUTS = [(torch.ones(2, 4),), (-torch.ones(2, 4),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
