"""[Where] An if nested in a branch."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() > 0:
        if x.max() > 3:
            y = x * 2
        else:
            y = x * 3
    else:
        y = -x
    return y


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([1.0, 1.0]),), (torch.tensor([-1.0, -1.0]),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
