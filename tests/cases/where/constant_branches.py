"""[Where] Branch values built by factory functions (zeros_like / ones_like)."""
import torch


def ENTRY(x: torch.Tensor):
    if x.mean() > 0:
        gate = torch.ones_like(x)
    else:
        gate = torch.zeros_like(x)
    return x * gate


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([-1.0, -2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
