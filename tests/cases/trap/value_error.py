"""[Trap] A validation guard raising ValueError with a literal message."""
import torch


def ENTRY(x: torch.Tensor):
    if (x < 0).any():
        raise ValueError("inputs must be non-negative")
    return x.sqrt()


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([1.0, -4.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM105", "trap")]
