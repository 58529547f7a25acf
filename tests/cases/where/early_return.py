"""[Where] An early return inside the if, the other value returned after it."""
import torch


def ENTRY(x: torch.Tensor):
    if x.max() > 5:
        return x.clamp(max=5)
    return x * 2


INPUTS = [(torch.tensor([1.0, 9.0]),), (torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
