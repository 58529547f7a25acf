"""[MaskedReduce]: where the dense form is not exact the helper runs the original selection:
a floating sum and max (order of addition, -0.0/0.0 ties). Masks of another shape:
tests/python/test_masked_runtime.py."""
import torch


def ENTRY(x: torch.Tensor, sel: torch.Tensor):
    m = sel != 0
    y = x * 1
    return y[m].sum(), y[m].max()


INPUTS = [
    (torch.tensor([0.1, 0.2, 0.3, 1e8]), torch.tensor([True, True, True, False])),
    (torch.tensor([0.0, -0.0, 1.0]), torch.tensor([True, True, False])),
]
EXPECTED_BREAKS = (2, 1)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM107", "masked_reduce")] * 2
