"""[Where] a read by a tensor index with dimensions (`table[x.long()]` with `x` a vector): a
masked read (runtime.index_where) picking several rows. Off its path (the second input, whose
indices are out of range) nothing is read out of range; on its path an index out of range
(the third input) fails the in-graph assert, and the call runs again eagerly, raising the
original's IndexError."""
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
    (torch.tensor([5.0, 1.0]), torch.tensor([10.0, 20.0, 30.0])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
