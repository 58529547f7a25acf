"""[Where] checked, with the `return` after the if folded in: a norm clip in a helper
method reached from forward, on an unannotated parameter (the `clip_grad_norm_`-style
rescale, done on activations)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.limit = 4.0

    def clip(self, v):
        if v.norm() > self.limit:
            return v * self.limit / v.norm()
        return v

    def forward(self, x):
        return self.clip(x + 1)


INPUTS = [(torch.ones(3),), (torch.full((3,), 5.0),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
