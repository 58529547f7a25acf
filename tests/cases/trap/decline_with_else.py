"""[Trap] declined: the guard has an else branch."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() < 0:
        raise ValueError("negative total")
    else:
        y = x * 2
    return y


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([1.0, -4.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM105", "declined")]
EXPECTED_DECLINES = [("GM105", "else branch")]
