"""declined: a branch calls a function with a side effect (both branches would run)."""
import torch

SEEN = []


def remember(t: torch.Tensor):
    SEEN.append(t.shape)
    return t * 2


def reset():
    SEEN.clear()


def ENTRY(x: torch.Tensor):
    if x.sum() > 0:
        y = remember(x)
    else:
        y = x
    return y + len(SEEN)


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([-1.0, -2.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "not pure")]
