"""[Where] + [Defer] The forward is wrapped by a library decorator (`@torch.no_grad()`) and a
helper by a user decorator (functools.wraps): mend(obj) mends the wrapped functions and
rebuilds the wrappers around them."""
import functools

import torch
from torch import nn


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@traced
def shift(h: torch.Tensor):
    if h.mean() > 1:
        h = h - 1
    return h


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(2.0))

    @torch.no_grad()
    def forward(self, x: torch.Tensor):
        h = shift(x * self.scale)
        print("shifted", h)
        return h


GRAD = True
INPUTS = [(torch.tensor([1.0, 3.0]),), (torch.tensor([0.1, 0.2]),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM102", "defer")]
