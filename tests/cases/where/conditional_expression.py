"""[Where] a conditional expression (`a if c else b`) on a tensor value, assigned: predicated
like the if statement it stands for."""
import torch


def ENTRY(x: torch.Tensor):
    h = x + 1
    y = h * 2 if h.sum() > 0 else h - 1
    return y


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([-3.0, -2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
