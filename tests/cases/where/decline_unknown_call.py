"""[Where] declined: a branch value calls an unknown (possibly impure) function."""
import random

import torch


def reset():
    random.seed(0)  # the branch value is random: every run draws the same


def ENTRY(x: torch.Tensor):
    y = x
    if x.sum() > 0:
        y = x * random.random()
    return y


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "not pure")]

torch.compile(ENTRY)  # traced: an entry point of the mender
