"""[Where] Under autograd, branch values that require grad are not selected by torch.where
(the "double where" hazard: `h.sqrt()` at a negative `h` gives the unselected side a NaN
gradient); compiled, runtime.cond_ok selects with torch.cond over the branches as written,
which differentiates only the selected one: one graph, gradients exact. Eagerly the Python
branch runs. Run with gradients enabled (GRAD = True)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.tensor([1.0, -2.0]))

    def forward(self, x: torch.Tensor):
        h = x * self.weight
        if h.sum() > 0:
            y = h.sqrt()
        else:
            y = h * 0
        return y


GRAD = True
INPUTS = [(torch.tensor([4.0, -1.0]),), (torch.tensor([-4.0, 1.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
