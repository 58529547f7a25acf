"""[MaskedReduce]: max and min of an integer or bool selection; an empty selection raises
torch's own RuntimeError from the dense form's trap."""
import torch


def ENTRY(x: torch.Tensor, sel: torch.Tensor):
    m = sel != 0
    y = x + 0
    return y[m].max(), y[m].min()


INPUTS = [
    (torch.tensor([3, -1, 0, 7]), torch.tensor([True, False, True, False])),
    (torch.tensor([3, -1, 0, 7]), torch.tensor([True, True, True, True])),
    (torch.tensor([False, True, True]), torch.tensor([True, False, True])),
    (torch.tensor([3, -1, 0, 7]), torch.tensor([False, False, False, False])),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM107", "masked_reduce")] * 2
