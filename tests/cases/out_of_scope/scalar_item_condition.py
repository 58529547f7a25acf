"""Out of scope (GM106): the condition is a Python scalar from .item(); the branch on it
(GM101) is declined too."""
import torch


def ENTRY(x: torch.Tensor):
    total = x.sum().item()
    if total > 0:
        return x * 2
    return x


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([-1.0, -2.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM106", "declined")]
EXPECTED_DECLINES = [("GM106", "converted to a Python scalar"), ("GM101", "not a tensor expression")]
