"""[Where] declined: a variable live after the if is assigned in one branch only and is
not bound before it (different live sets); branches assigning nothing used later."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() > 0:
        y = x * 2
        z = x
    else:
        z = x - 1
    if z.mean() > 0:
        w = z + 1
    else:
        v = z
    return y * z


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (3, 3)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "different live sets"), ("GM101", "no variable used afterwards")]

torch.compile(ENTRY)  # traced: an entry point of the mender
