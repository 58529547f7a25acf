"""[Trap] A guard raising an exception class without arguments."""
import torch


def ENTRY(x: torch.Tensor):
    if x.isnan().any():
        raise FloatingPointError
    return x * 2


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([1.0, float("nan")]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM105", "trap")]
