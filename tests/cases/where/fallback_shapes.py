"""[Where] Branch values of different shapes: where_ok keeps the original branch at run
time (torch.where would broadcast), so results are exact; equal shapes are predicated."""
import torch


def ENTRY(x: torch.Tensor, b: torch.Tensor):
    if x.sum() > 0:
        y = x * 2
    else:
        y = b + 1
    return y


INPUTS = [(torch.ones(3), torch.zeros(3)), (-torch.ones(3), torch.zeros(3)),
          (torch.ones(3), torch.zeros(1)), (-torch.ones(3), torch.zeros(1))]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
