"""[Where] Nested data-dependent ifs."""
import torch


def ENTRY(x: torch.Tensor, y: torch.Tensor):
    if x.mean() > 0:
        if y.mean() > 0:
            z = x + y
        else:
            z = x - y
    else:
        z = x * y
    return z


INPUTS = [
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0])),
    (torch.tensor([1.0, 2.0]), torch.tensor([-1.0, -1.0])),
    (torch.tensor([-1.0, -2.0]), torch.tensor([3.0, 1.0])),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where")]
