"""[Where] declined: every arm of a tensor `if` raises (`if c: raise A(...) else: raise
B(...)`, a validation guard site with an else branch): no arm gives a value to select."""
import torch


def ENTRY(x: torch.Tensor, strict: bool = False):
    y = x * 2
    if not strict:
        return y
    if y.sum() > 0:
        raise ValueError("positive total")
    else:
        raise KeyError("non-positive total")


INPUTS = [(torch.ones(2),), (torch.ones(2), True), (-torch.ones(2), True)]
EXPECTED_BREAKS = (0, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM105", "declined")]
EXPECTED_DECLINES = [("GM105", "every branch raises")]

torch.compile(ENTRY)  # traced: an entry point of the mender
