"""[MaskedReduce]'s masked_assign form where the run-time check fails and the original
statement runs: a source of another dtype than the target (index_put_ raises, as the
original does), an integer target, a mask that does not fit the target (IndexError, as the
original)."""
import torch


def ENTRY(x: torch.Tensor, y: torch.Tensor, sel: torch.Tensor, offset=1):
    out = x * 1
    rows = sel > 0
    out[rows] = y[rows] + offset
    return out


INPUTS = [
    (torch.ones(4, 3, dtype=torch.int64), torch.ones(4, 3, dtype=torch.int64), torch.tensor([1, 0, 1, 0])),
    (torch.randn(4, 3), torch.randn(4, 3, dtype=torch.float64), torch.tensor([1, 0, 1, 0])),
    (torch.randn(4, 3), torch.randn(4, 3, dtype=torch.float64), torch.zeros(4, dtype=torch.int64)),
    (torch.randn(4, 3), torch.randn(4, 3), torch.tensor([1, 0, 1])),
    (torch.randn(4, 3), torch.randn(4, 2), torch.tensor([1, 0, 1, 0])),
    (torch.randn(4, 3), torch.randn(4, 3), torch.tensor([1, 0, 1, 0]), torch.tensor([1.0, 2.0, 3.0])),
    (torch.randn(4, 3), torch.randn(4, 3), torch.tensor([1, 0, 1, 0]), 0.5),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM107", "masked_assign")]
EXPECTED_DECLINES = []
