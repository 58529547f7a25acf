"""[Where] declines a branch in a loop that changes in place a tensor the function made:
a view taken after the if in one iteration (`rows.append(out[0])`) would see the next
iteration's change in the original and not in a changed copy, so the branch stays as
written."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, x, idx):
        out = torch.zeros(4, x.shape[1])
        rows = []
        for step in range(2):
            if (idx >= step).all():
                out.index_add_(0, idx, x)
            rows.append(out[0])
        return out, torch.stack(rows)


torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 2), torch.tensor([1, 2, 2])),
    (torch.randn(3, 2), torch.tensor([0, 1, 2])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (0, 0)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "a branch mutates state")]
