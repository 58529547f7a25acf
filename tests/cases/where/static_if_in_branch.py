"""A static if (a flag) nested in a tensor branch: both of its sides are computed and the
flag selects one (`t2 = t0 if flag else t1`), then torch.where selects on the tensor
condition, behind `python_flags(flag)` (the flag is read where the original may not read
it: a bool, int, float or None cannot raise there). Both flags, both tensor sides; the
flag an attribute too (`self.training`)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, x: torch.Tensor, shift: bool):
        y = x * 2
        if y.mean() > 0:
            if shift:
                y = y + 1
            else:
                y = y - 1
            z = y * 3
        else:
            if self.training:
                z = y / 2
            else:
                z = y
        return y, z


torch.manual_seed(0)
INPUTS = [
    (torch.rand(3, 4), True),
    (torch.rand(3, 4), False),
    (-torch.rand(3, 4), True),
    (-torch.rand(3, 4), False),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
