"""[Where] declined: a branch value calls an unknown (possibly impure) function."""
import random

import torch


def ENTRY(x: torch.Tensor):
    y = x
    if x.sum() > 0:
        y = x * random.random()
    return y


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
DECLINES = ["not pure"]

torch.compile(ENTRY)  # traced: an entry point of the mender
