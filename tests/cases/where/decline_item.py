"""[Where] declined: a condition on .item() (a Python scalar; GM106 is out of scope)."""
import torch


def ENTRY(x: torch.Tensor):
    y = x
    if x.sum().item() > 0:
        y = x * 2
    return y


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM106", "declined")]
EXPECTED_DECLINES = [("GM101", ".item()"), ("GM106", "converted to a Python scalar")]

torch.compile(ENTRY)  # traced: an entry point of the mender
