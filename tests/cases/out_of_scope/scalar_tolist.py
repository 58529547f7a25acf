"""Out of scope (GM106): .tolist() turns a tensor into Python numbers."""
import torch


def ENTRY(x: torch.Tensor):
    y = x * 2
    values = y.tolist()
    return y * len(values)


INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM106", "declined")]
EXPECTED_DECLINES = [("GM106", "converted to a Python scalar")]
