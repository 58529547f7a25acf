"""[Defer] declined: the print's result is used (not an expression statement)."""
import torch


def ENTRY(x: torch.Tensor):
    printed = print("x is", x)
    return x if printed is None else x + 1


INPUTS = [(torch.tensor([1.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (0, 0)
EXPECTED_TAGS = [("GM102", "declined")]
EXPECTED_DECLINES = [("GM102", "result is used")]
