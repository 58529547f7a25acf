"""[Where] The merge set holds two variables assigned in both branches."""
import torch


def ENTRY(x: torch.Tensor):
    if x.mean() > 0:
        scale = x * 0 + 2
        shift = x + 1
    else:
        scale = x * 0 + 0.5
        shift = x - 1
    return x * scale + shift


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([-1.0, -2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
