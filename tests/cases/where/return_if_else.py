"""[Where] Both branches return."""
import torch


def ENTRY(x: torch.Tensor):
    h = torch.tanh(x)
    if h.max() > 0.5:
        return h * 2
    else:
        return h - 1


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([0.1, -2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
