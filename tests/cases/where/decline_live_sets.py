"""declined: the branches bind different variables that are live after the if, and the
one bound before is not a tensor."""
import torch


def ENTRY(x: torch.Tensor):
    extra = None
    if x.sum() > 0:
        extra = x * 2
        base = x + 1
    else:
        base = x - 1
    if extra is None:
        return base
    return base + extra


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([-1.0, -2.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "different live sets")]
