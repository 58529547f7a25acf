"""[Where] declines, at run time, changing a copy in training: the branch of
`cond_in_place_on_fresh_tensor.py` with grad mode on. The sides differ in requiring grad
(`out - 1` of zeros does not, the aggregated messages do), and torch.cond's output requires
grad if either side's does: the original's `requires_grad` would not be kept. The check
`not torch.is_grad_enabled()` runs the original statement, so the break stays and the
gradients are the original's."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x, idx):
        h = self.lin(x)
        out = torch.zeros(4, h.shape[1])
        if (idx >= 0).all():
            out.index_add_(0, idx, h)
        else:
            out = out - 1
        return out * 2


torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 2), torch.tensor([0, 2, 2])),  # valid: aggregated
    (torch.randn(3, 2), torch.tensor([0, -1, 2])),  # a negative index: the fallback value
]
GRAD = True
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "cond")]
EXPECTED_DECLINES = []
