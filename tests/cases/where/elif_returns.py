"""[Where] An if/elif with returns followed by a final return (early returns
canonicalised to one predicated return)."""
import torch


def ENTRY(x: torch.Tensor):
    h = x * 1.5
    if h.sum() > 0:
        return h * 2
    elif h.sum() < -5:
        return h
    return h - 1


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([-5.0, -2.0]),), (torch.tensor([-1.0, 0.5]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where")]
