"""[Where] declined: a branch that only prints, with an argument that has a side effect
(`self.notes.append(...)`, which returns None). Recorded with the condition, the argument
would be computed whatever the condition, noting where the original does not."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.notes = []

    def forward(self, x: torch.Tensor):
        if (x > 10).any():
            print("noted", self.notes.append(x.shape[0]))
        return x * 2, len(self.notes)


torch.manual_seed(0)
INPUTS = [(torch.randn(3) * 100.0,), (torch.randn(3) * 0.01,)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM102", "defer")]
EXPECTED_DECLINES = [("GM101", "mutates state")]
