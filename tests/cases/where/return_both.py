"""[Where] return in both branches."""
import torch


def ENTRY(x: torch.Tensor, y: torch.Tensor):
    if torch.any(x > y):
        return x - y
    else:
        return y - x


INPUTS = [(torch.tensor([3.0, 0.0]), torch.tensor([1.0, 1.0])),
          (torch.tensor([0.0, 0.0]), torch.tensor([1.0, 1.0]))]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
