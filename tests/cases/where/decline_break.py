"""[Where] declined: a branch breaks out of a loop."""
import torch


def ENTRY(x: torch.Tensor):
    for _ in range(3):
        if x.sum() > 4:
            break
        x = x * 2
    return x


INPUTS = [(torch.ones(2),), (torch.ones(2) * 3,)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (0, 0)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "break/continue")]

torch.compile(ENTRY)  # traced: an entry point of the mender
