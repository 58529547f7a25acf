"""[Where] and/or/not in the condition become torch.logical_*."""
import torch


def ENTRY(x: torch.Tensor, mask: torch.Tensor):
    if not (x.sum() > 0 or mask.any()) and x.min() > -5:
        y = x.abs()
    else:
        y = x
    return y


INPUTS = [(torch.tensor([-1.0, -2.0]), torch.tensor([False, False])),
          (torch.tensor([-1.0, -2.0]), torch.tensor([False, True])),
          (torch.tensor([1.0, 2.0]), torch.tensor([False, False])),
          (torch.tensor([-10.0, -2.0]), torch.tensor([False, False]))]
EXPECTED_BREAKS = (3, 0)
EXPECTED_GRAPHS = (4, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
