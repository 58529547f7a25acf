"""Breaks no rewrite fixes: a Python scalar and a data-dependent output shape."""

import torch


def scaled(x):
    n = x.abs().sum().item()  # SITE: item
    return x * n + 1


def positives(x):
    y = x[x > 0]  # SITE: mask
    return y.sum() + x.mean()


class Masked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        self.calls += 1
        h = self.lin(x)
        return h[h > 0].sum() + h.mean()  # SITE: module mask
