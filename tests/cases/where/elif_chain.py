"""[Where] An if/elif/else chain: three values merged."""
import torch


def ENTRY(x: torch.Tensor):
    s = x.sum()
    if s > 10:
        y = x / 10
    elif s > 0:
        y = x * 2
    else:
        y = -x
    return y


INPUTS = [(torch.tensor([3.0, 4.0]),), (torch.tensor([20.0, 1.0]),), (torch.tensor([-3.0, 1.0]),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where")]
