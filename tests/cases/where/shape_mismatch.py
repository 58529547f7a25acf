"""[Where] Branch values of different shapes: torch.where would broadcast, so the
rewrite's shape check keeps the Python branch and the result equals the original."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() > 0:
        y = x.sum(dim=0)
    else:
        y = x
    return y * 2


INPUTS = [(torch.ones(2, 3),), (-torch.ones(2, 3),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "where")]
