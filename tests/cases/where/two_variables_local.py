"""[Where] Two merged variables and a branch-local intermediate."""
import torch


def ENTRY(x: torch.Tensor, b: torch.Tensor):
    scale = x.abs() + 1
    if (x * b).mean() > 0:
        t = x * scale
        y = t + b
        z = t - b
    else:
        y = b
        z = x * 3
    return y * z


INPUTS = [(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 0.5])),
          (torch.tensor([1.0, 2.0]), torch.tensor([-0.5, -0.5]))]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
