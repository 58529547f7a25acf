"""[Defer] print of a tensor."""
import torch


def ENTRY(x: torch.Tensor):
    y = x * 2
    print("y:", y)
    return y + 1


INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM102", "defer")]
