"""[Where] `and` between two tensor conditions becomes torch.logical_and."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() > 0 and x.max() < 10:
        y = x * 2
    else:
        y = x
    return y + 0


INPUTS = [
    (torch.tensor([1.0, 2.0]),),
    (torch.tensor([1.0, 20.0]),),
    (torch.tensor([-5.0, 2.0]),),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where")]
