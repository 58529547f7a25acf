"""[MaskedReduce]'s masked_assign form in training (gradients compared): the target is built
from a parameter and the input, the stored value from integer data (no gradient), so the
dense store carries the target's gradient (zero where the mask stores). Where a source
requires grad (the gradient check's float inputs) the original statement runs."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 3))

    def forward(self, x: torch.Tensor, sel: torch.Tensor, y: torch.Tensor):
        out = x * self.w
        rows = sel > 0
        ref = sel.float()[:, None] * torch.ones(3)
        out[rows] = ref[rows] * 0.5 - 1.0
        out2 = out * 2
        out2[rows] = y[rows] * 3
        return out2.sum(1)


GRAD = True
torch.manual_seed(0)
INPUTS = [
    (torch.randn(4, 3), torch.tensor([1, 0, 2, 0]), torch.randn(4, 3)),
    (torch.randn(4, 3), torch.zeros(4, dtype=torch.int64), torch.randn(4, 3)),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM107", "masked_assign")] * 2
EXPECTED_DECLINES = []
