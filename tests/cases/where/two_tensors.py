"""[Where] A comparison of two tensors' reductions; a branch value is an input."""
import torch


def ENTRY(a: torch.Tensor, b: torch.Tensor):
    if a.sum() > b.sum():
        bigger = a
    else:
        bigger = b
    return bigger * 1


INPUTS = [
    (torch.tensor([3.0, 4.0]), torch.tensor([1.0, 1.0])),
    (torch.tensor([0.0, 1.0]), torch.tensor([5.0, 1.0])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
