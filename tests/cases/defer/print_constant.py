"""[Defer] print of constant text only."""
import torch


def ENTRY(x: torch.Tensor):
    y = x + 1
    print("running the block")
    return y * 2


INPUTS = [(torch.tensor([0.0, 1.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM102", "defer")]
