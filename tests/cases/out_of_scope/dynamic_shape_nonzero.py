"""Out of scope (GM107): nonzero has a data-dependent output shape."""
import torch


def ENTRY(x: torch.Tensor):
    index = torch.nonzero(x > 0)
    return index.float().sum() + x.sum()


INPUTS = [(torch.tensor([1.0, -2.0, 3.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM107", "declined")]
EXPECTED_DECLINES = [("GM107", "data-dependent output shape")]
