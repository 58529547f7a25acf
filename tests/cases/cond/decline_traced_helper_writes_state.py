"""[Cond] declined: the branch calls a helper with a loop (only Dynamo's trace could show
torch.cond traces it) that also writes Python state (appends to a module-level list).
Tracing is not the check of that: the write runs only on the side taken in the original,
so the branch is left as it is."""

import torch

HISTORY = []


def smooth(x):
    for _ in range(2):
        x = (x + x.roll(1, 0)) / 2
    HISTORY.append(len(HISTORY))
    return x


def reset():
    HISTORY.clear()


def ENTRY(x: torch.Tensor):
    if x.sum() > 0:
        y = smooth(x)
    else:
        y = x - 1
    return y, len(HISTORY)


INPUTS = [(torch.ones(3),), (-torch.ones(3),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "is not pure")]

torch.compile(ENTRY)  # traced: an entry point of the mender
