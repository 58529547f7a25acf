"""[Where] a branch value converted with a Python type as its dtype (`mask.to(int)`,
`x.to(float)`): torch takes int, float and bool for its default dtypes, so the conversion
is a pure read evaluated on both sides. A local named `int` is not Python's int: that
conversion stays a call the branch makes (decline_dtype_name_shadowed)."""

import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, target, mask):
        target = target.clone()
        if not torch.all(mask == 1):
            target = target * mask[:, 0, :].to(int) + mask[:, 0, :].to(bool).to(float).sum().to(int)
        return target


torch.manual_seed(0)
INPUTS = [
    (torch.ones(2, 5, dtype=torch.int64), torch.tensor([[[1.0, 1, 0, 0, 1]], [[1.0, 1, 1, 1, 1]]])),
    (torch.ones(2, 5, dtype=torch.int64), torch.ones(2, 1, 5)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
