"""[Where] Branch values of different dtypes: torch.where would promote, so the Python
branch is kept (no break removed, result identical)."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() > 0:
        y = x.round().to(torch.int64)
    else:
        y = x
    return y


INPUTS = [(torch.tensor([1.4, 2.6]),), (torch.tensor([-1.4, 0.2]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
