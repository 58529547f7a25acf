"""[Where] declined: a branch raises (a nested validation guard; [Trap] reports that one)."""
import torch


def ENTRY(x: torch.Tensor):
    y = x
    if x.sum() > 0:
        y = x * 2
    else:
        y = x
        if x.min() < -100:
            raise ValueError("too small")
    return y


INPUTS = [(torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM105", "trap")]
EXPECTED_DECLINES = [("GM101", "raises")]

torch.compile(ENTRY)  # traced: an entry point of the mender
