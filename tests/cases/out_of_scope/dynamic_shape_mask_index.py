"""Out of scope (GM107): boolean-mask indexing."""
import torch


def ENTRY(x: torch.Tensor):
    positive = x[x > 0]
    return positive.sum() * 2


INPUTS = [(torch.tensor([1.0, -2.0, 3.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM107", "declined")]
EXPECTED_DECLINES = [("GM107", "data-dependent output shape")]
