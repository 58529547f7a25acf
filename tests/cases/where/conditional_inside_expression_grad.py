"""A conditional expression inside an expression in training (gradients compared): the
values require grad, so runtime.selecting refuses (the unselected side's gradients) and the
caller's own conditional expression runs: a graph break in the caller's frame, as in the
original (no graph more). In eval (no_grad) the same code is one graph."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3))

    def forward(self, x: torch.Tensor):
        h = x * self.w
        return torch.cat([h, h.sqrt() if h.sum() > 0 else h * 2])


GRAD = True
INPUTS = [(torch.rand(3) + 1,), (-torch.rand(3) - 1,)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
