"""[Where] declines, at run time, a static test ordering a flag against a number when the
flag is not an int or float (`runtime.python_numbers`): `self.verbose` is None here, so
`None >= 1` raises TypeError where the branch's condition holds, and only there. The
mended code computes the test on both sides, so it checks the flag first and runs the
original if when the check fails: the TypeError is raised on the same input as the
original's, and the break stays."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.verbose = None

    def forward(self, x):
        kl = (x * x).mean()
        if kl > 1.0:
            if self.verbose >= 1:
                print("large kl", kl)
        return x * 2


torch.manual_seed(0)
INPUTS = [
    (torch.randn(8) * 0.1,),  # small: the test is never evaluated
    (torch.randn(8) * 10.0,),  # large: `None >= 1` raises TypeError, as the original does
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "where"), ("GM102", "where")]
EXPECTED_DECLINES = []
