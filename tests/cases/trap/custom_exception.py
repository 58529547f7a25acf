"""[Trap] A guard raising an exception class defined in the module."""
import torch


class ShapeMismatchError(Exception):
    pass


def ENTRY(x: torch.Tensor, lengths: torch.Tensor):
    if lengths.max() > x.shape[-1]:
        raise ShapeMismatchError("a length exceeds the sequence")
    return x.cumsum(-1)


INPUTS = [
    (torch.ones(2, 4), torch.tensor([4, 2])),
    (torch.ones(2, 4), torch.tensor([5, 2])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM105", "trap")]
