"""[Where] declined: a raising arm that chains a cause (`raise E("m") from None`): the guard
raises `E("m")` alone, so the raise has no guard form."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() > 0:
        y = x * 2
    else:
        raise ValueError("the total is not positive") from None
    return y


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "chains a cause")]

torch.compile(ENTRY)  # traced: an entry point of the mender
