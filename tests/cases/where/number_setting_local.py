"""[Where]: a local computed from a setting the class only ever sets to a number (`keep = 1
- self.drop_prob`, `self.drop_prob = drop_prob` from `drop_prob=0.5`), read by both sides of
a branch on a random draw (a stochastic-depth layer dropping its residual branch in
training). The local is a Python number, not a value to assume a tensor and check: a check
`runtime.tensors(x, keep)` would fail on every call and run the original. torch.where over
`x * 0.0` and `x / keep`; the draw is made once, as in the original."""
import torch
from torch import nn


def reset():
    torch.manual_seed(0)


class ENTRY(nn.Module):
    def __init__(self, drop_prob=0.5):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        if self.drop_prob == 0.0 or not self.training:
            return x
        keep = 1 - self.drop_prob
        if torch.rand(()) < self.drop_prob:
            return x * 0.0
        return x / keep


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3),),
    (torch.randn(4, 3),),
    (torch.randn(1, 3),),
    (torch.randn(3, 3),),
]
GRAD = True
RANDOM = True
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
