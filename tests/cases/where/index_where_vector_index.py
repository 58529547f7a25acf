"""[Where] a read by a tensor index that need not be 0-d (`table[x.long()]`): planned as a
masked read (runtime.index_where), but with `x` a vector runtime.index_where_ok refuses the
one-dimensional index (it selects several rows, and evaluating it ahead of the branch may
raise where the original does not), so the original statement runs and keeps its break."""
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
EXPECTED_TAGS = [("GM101", "where")]
