"""[Where] if/else assigning one live variable."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    return y + 1


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([-1.0, -2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
