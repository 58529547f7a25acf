"""[Where] checked: conditional expressions on a 0-d tensor (a logit peak) with nothing
annotated: one assigned, one returned, one that calls a submodule (declined: torch.cond
predicates if statements, not expressions). The first two run under
`runtime.tensors(...)`; where the check fails the original statement runs."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(3, 3)

    def forward(self, logits):
        peak = logits.abs().max()
        scaled = logits / peak if peak > 1 else logits
        scaled = self.head(scaled) if peak > 100 else scaled
        return scaled * 2 if scaled.mean() > 0 else scaled - 1


INPUTS = [(torch.tensor([[0.5, -0.25, 0.1]]),), (torch.tensor([[4.0, -2.0, 1.0]]),),
          (torch.tensor([[-4.0, -2.0, 1.0]]),), (torch.tensor([[400.0, -2.0, 1.0]]),)]
EXPECTED_BREAKS = (3, 1)
EXPECTED_GRAPHS = (4, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "where"), ("GM101", "where")]
EXPECTED_DECLINES = [("GM101", "torch.cond predicates if statements")]
