"""[Scalar] with [Where]: the branch is on a Python scalar read with .item() (a float: the sum
of a float tensor), compared with an int. The scalar is held as a float64 tensor while
compiling, and the branch is predicated on it."""
import torch


def ENTRY(x: torch.Tensor):
    total = x.sum().item()
    if total > 0:
        return x * 2
    return x


INPUTS = [
    (torch.tensor([1.0, 2.0]),),
    (torch.tensor([-1.0, -2.0]),),
    (torch.tensor([float("nan"), 1.0]),),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM106", "scalar")]

torch.compile(ENTRY)  # traced: an entry point of the mender
