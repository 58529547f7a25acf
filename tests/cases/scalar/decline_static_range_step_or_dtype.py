"""[Scalar] declines a range tensor read back whose list is not the Python range: a `dtype`
(`torch.arange(n, dtype=torch.float32).tolist()` reads floats), a step that is not a nonzero
int literal (`range` and `arange` raise different errors for a zero step, and a computed
step may be zero), or a receiver other than `torch.arange`."""

import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, x, step):
        floats = torch.arange(len(x.shape), dtype=torch.float32).tolist()
        stepped = torch.arange(0, x.shape[-1], step).tolist()
        flipped = torch.arange(len(x.shape)).flip(0).tolist()
        return x * floats[-1], stepped, flipped


INPUTS = [(torch.ones(2, 3), 1), (torch.ones(2, 3), 2)]
EXPECTED_BREAKS = (3, 3)
EXPECTED_GRAPHS = (4, 4)
EXPECTED_TAGS = [("GM106", "declined"), ("GM106", "declined"), ("GM106", "declined")]
EXPECTED_DECLINES = [("GM106", "read otherwise"), ("GM106", "read otherwise"), ("GM106", "read otherwise")]
