"""[MaskedReduce]: integer and bool selections reduced densely (sum, prod, any, all,
count_nonzero), every mask: none, some and all selected."""
import torch


def ENTRY(x: torch.Tensor, sel: torch.Tensor):
    m = sel != 0
    y = x * 1
    return (
        y[m].sum(),
        y[m].prod(),
        y[m].any(),
        y[m].all(),
        y[m].count_nonzero(),
    )


_M = [
    torch.tensor([False, False, False, False]),
    torch.tensor([True, False, True, False]),
    torch.tensor([True, True, True, True]),
]
INPUTS = (
    [(torch.tensor([3, -1, 0, 7], dtype=torch.int32), m) for m in _M]
    + [(torch.tensor([True, False, True, True]), m) for m in _M[1:]]
)
EXPECTED_BREAKS = (5, 0)
EXPECTED_GRAPHS = (6, 1)
EXPECTED_TAGS = [("GM107", "masked_reduce")] * 5
