"""[Where] `or` and `not` between tensor conditions."""
import torch


def ENTRY(x: torch.Tensor):
    if not (x.min() > 0) or x.mean() > 5:
        y = x.abs()
    else:
        y = x.sqrt()
    return y


INPUTS = [
    (torch.tensor([-1.0, 4.0]),),
    (torch.tensor([7.0, 9.0]),),
    (torch.tensor([1.0, 4.0]),),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
