"""[Where] declines unpacking what a helper returns when its returns are not all tuple
displays of as many values (`return x, x.sum()` on one path, `return x` on the other): the
text does not show how many values the unpacking gets, so the branch stays as written."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.with_total = True

    def _fix(self, x):
        x = self.lin(x.clamp(min=0))
        if self.with_total:
            return x, x.sum()
        return x

    def forward(self, x):
        h = self.lin(x)
        if (h < -1).any():
            h, total = self._fix(h)
        else:
            total = h.sum()
        return h, total


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3) * 5.0,),
    (torch.zeros(2, 3),),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "unpacking a value other than a tuple display")]
