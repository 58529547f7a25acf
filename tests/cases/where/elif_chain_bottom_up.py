"""[Where] An elif chain: nested torch.where from the bottom up."""
import torch


def ENTRY(x: torch.Tensor):
    m = x.mean()
    if m > 1:
        y = x * 2
    elif m < -1:
        y = x - 1
    else:
        y = x
    return y


INPUTS = [(torch.tensor([2.0, 3.0]),), (torch.tensor([-2.0, -3.0]),), (torch.tensor([0.5, 0.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
