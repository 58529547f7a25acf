"""[Where] An else-less update of a variable bound before the if."""
import torch


def ENTRY(x: torch.Tensor):
    y = x + 1
    if y.mean() > 2:
        y = y * 3
    return y


INPUTS = [(torch.tensor([1.0, 5.0]),), (torch.tensor([0.0, 1.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
