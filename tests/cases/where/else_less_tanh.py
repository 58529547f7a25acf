"""[Where] An else-less update of a variable bound before the if."""
import torch


def ENTRY(x: torch.Tensor):
    y = x + 1
    if x.max() > 3:
        y = torch.tanh(x / 3) * 3
    return y * 2


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([0.1, 0.2]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
