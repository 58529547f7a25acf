"""Out of scope (GM108): a slice bound computed from tensor data."""
import torch


def ENTRY(x: torch.Tensor):
    y = x * 2
    n = y.argmax()
    return y[:n].sum()


INPUTS = [(torch.tensor([1.0, 2.0, 5.0, 3.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM108", "declined")]
EXPECTED_DECLINES = [("GM108", "slice bound")]
