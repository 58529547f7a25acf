"""[Where] declined: a raising arm whose message reads a name the branch assigned. The guard
runs before any of the branch's assignments (and a formatted message is built only when it
fails), so the name would not hold the branch's value there."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() > 0:
        y = x * 2
    else:
        limit = 0.0
        raise ValueError(f"the total is not above {limit}")
    return y


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "reading `limit`, which the branch assigns")]

torch.compile(ENTRY)  # traced: an entry point of the mender
