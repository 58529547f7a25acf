"""Breaks no rewrite fixes: a Python scalar handed to the program's own function (which
could branch on it: [Scalar] captures none such) and a data-dependent output shape."""

import torch


def _scale(x, n):
    return x * n + 1


def scaled(x):
    n = x.abs().sum().item()  # SITE: item
    return _scale(x, n)


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


def global_scores(x, is_global, values):
    # Dynamo captures this under capture_scalar_outputs, but Inductor's bmm lowering
    # guards on the unbacked size `count` and fails (torch 2.13).
    count = is_global.long().sum(dim=1).max()
    picked = x.new_zeros(x.shape[0], count, x.shape[2])  # SITE: unbacked size
    picked[:, :, :] = 1.0
    return torch.bmm(picked, values.transpose(1, 2)).sum()
