"""[Where] a condition whose first operands are static and whose last is a tensor test
(`if self.strict or scale.mean() < 1:`, `if mask is None or mask.sum() == 0:`): where every
flag is false the condition is the tensor test, predicated; where one holds the original
`if` runs (Dynamo resolves the flags while tracing, so that costs no break either). The
tensor test is never evaluated where a flag holds, as in the original (`mask.sum()` on
None would raise). A pure flag after the tensor test (`if (x < -5).any() or self.strict:`)
is tested first: it cannot raise, so the truth of the `or` is the same."""

import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.strict = False

    def forward(self, x, mask=None, strict=False):
        self.strict = strict
        scale = x.abs().mean()
        if self.strict or scale < 1:
            x = x * 2
        if mask is None or mask.sum() == 0:
            y = x + 1
        else:
            y = x * mask
        if (x < -5).any() or self.strict:
            y = -y
        return x, y


torch.manual_seed(0)
INPUTS = [
    (torch.full((2, 3), 0.5), torch.ones(2, 3)),
    (torch.full((2, 3), 3.0), torch.zeros(2, 3)),
    (torch.full((2, 3), 3.0), None, True),
    (torch.full((2, 3), 0.5), None, False),
    (torch.full((2, 3), 3.0), torch.ones(2, 3), True),
    (torch.full((2, 3), -6.0), torch.ones(2, 3)),
]
EXPECTED_BREAKS = (3, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where"), ("GM101", "where")]
