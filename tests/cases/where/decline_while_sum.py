"""[Where] declined: a while loop on a tensor condition."""
import torch


def ENTRY(x: torch.Tensor):
    while x.sum() > 1:
        x = x / 2
    return x


INPUTS = [(torch.ones(2) * 8,)]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "while loop")]

torch.compile(ENTRY)  # traced: an entry point of the mender
