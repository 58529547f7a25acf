"""[Where] declined: a branch breaks out of a loop."""
import torch


def ENTRY(x: torch.Tensor):
    for _ in range(3):
        if x.sum() > 4:
            break
        x = x * 2
    return x


INPUTS = [(torch.ones(2),), (torch.ones(2) * 3,)]
DECLINES = ["break/continue"]

torch.compile(ENTRY)  # traced: an entry point of the mender
