"""declined: a branch value can raise (indexing), so evaluating both is unsafe."""
import torch


def ENTRY(x: torch.Tensor, table: torch.Tensor):
    if x.sum() > 0:
        y = table[x.long()]
    else:
        y = x
    return y


INPUTS = [
    (torch.tensor([1.0, 2.0]), torch.tensor([10.0, 20.0, 30.0])),
    (torch.tensor([-7.0, -9.0]), torch.tensor([10.0, 20.0, 30.0])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "may raise")]
