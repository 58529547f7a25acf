"""A conditional expression inside another expression (a call's argument, an operand, a
list element) written `runtime.select(c, lambda: a, lambda: b)`
in place: the condition evaluated once, first; while compiling both sides computed and
selected with torch.where where where_ok holds; eagerly only the side picked. An
unannotated operand is assumed a tensor and checked (select's `assumed`)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, x: torch.Tensor, t: torch.Tensor, rows: torch.Tensor, u):
        a = torch.cat([x, x * 2 if t.sum() > 0 else x / 2], dim=0)
        b = 1.0 + (x.abs() if t.mean() < 0.5 else -x)
        c = [r * 2 for r in rows]
        d = torch.stack([u + 1 if t.max() > 0 else u - 1])
        return a, b, torch.stack(c), d


torch.manual_seed(0)
INPUTS = [
    (torch.randn(3), torch.tensor([0.2, 0.1]), torch.randn(2, 3), torch.randn(3)),
    (torch.randn(3), torch.tensor([-0.2, -0.1]), torch.randn(2, 3), torch.randn(3)),
    (torch.randn(3), torch.tensor([0.9, 0.8]), -torch.rand(2, 3), torch.randn(3)),
]
EXPECTED_BREAKS = (3, 0)
EXPECTED_GRAPHS = (4, 1)
EXPECTED_TAGS = [("GM101", "where")] * 3
EXPECTED_DECLINES = []
