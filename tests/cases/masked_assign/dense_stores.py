"""[MaskedReduce]'s masked_assign form: stores through a boolean mask of values computed
element by element from selections by the same mask, written densely with torch.where
(`out[m] = -y[m] * 2` -> `masked_assign_(out, m, -y * 2)`): arithmetic with numbers,
element-wise methods and torch functions with number arguments, a Python number held in
a name (checked at run time), a row mask over a matrix
(the mask widened over the trailing dimension), a full-shape mask, the target read in its
own value, and an attribute as the target. Inputs: some rows selected, none, all."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.ones(4, 3))

    def forward(self, x: torch.Tensor, y: torch.Tensor, sel: torch.Tensor, step: float):
        out = x * 1.0
        rows = sel > 0
        out[rows] = -y[rows] * 2 + y[rows].abs().clamp(max=1.0)
        cells = torch.lt(y, 0.25)
        out[cells] = torch.exp(y[cells]) / 2 - out[cells] ** 2
        out[rows] = torch.clamp(out[rows], min=-0.5) // step % 3
        self.scale[rows] = y[rows].sigmoid()
        return out, self.scale * 1


torch.manual_seed(0)
INPUTS = [
    (torch.randn(4, 3), torch.randn(4, 3), torch.tensor([1, 0, 2, 0]), 0.25),
    (torch.randn(4, 3), torch.randn(4, 3), torch.zeros(4, dtype=torch.int64), 0.5),
    (torch.randn(4, 3), torch.randn(4, 3) + 2.0, torch.ones(4, dtype=torch.int64), 1),
]


def reset():
    torch.manual_seed(0)


EXPECTED_BREAKS = (6, 0)
EXPECTED_GRAPHS = (7, 1)
EXPECTED_TAGS = [("GM107", "masked_assign")] * 6
EXPECTED_DECLINES = []
