"""[Where] declines a branch that changes in place a tensor a view also holds (`first =
out[0]` before the if): the original's change reaches the view, a change to a copy would
not, so the branch stays as written."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, x, idx):
        out = torch.zeros(4, x.shape[1])
        first = out[0]
        if (idx >= 0).all():
            out.index_add_(0, idx, x)
        return out, first * 1


torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 2), torch.tensor([0, 2, 2])),
    (torch.randn(3, 2), torch.tensor([0, -1, 2])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "a branch mutates state")]
