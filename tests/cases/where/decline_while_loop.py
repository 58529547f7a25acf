"""declined: a data-dependent while loop."""
import torch


def ENTRY(x: torch.Tensor):
    while x.abs().sum() > 1:
        x = x / 2
    return x


INPUTS = [(torch.tensor([3.0, 1.0]),), (torch.tensor([0.1, 0.2]),)]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "while loop")]
