"""[Trap] declined: the message is formatted from tensor values (not a literal)."""
import torch


def ENTRY(x: torch.Tensor):
    if (x < 0).any():
        raise ValueError(f"negative input: {x.min()}")
    return x.sqrt()


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([1.0, -4.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM105", "declined")]
EXPECTED_DECLINES = [("GM105", "neither a string literal")]
