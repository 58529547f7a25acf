"""[Defer] + [Where] A print and a data-dependent branch in one function."""
import torch


def ENTRY(x: torch.Tensor):
    print("input sum", x.sum())
    if x.sum() > 0:
        y = x * 2
    else:
        y = x * -1
    return y


INPUTS = [(torch.tensor([1.0, 2.0]),), (torch.tensor([-1.0, -2.0]),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM102", "defer")]
