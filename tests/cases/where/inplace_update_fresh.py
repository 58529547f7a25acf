"""[Where]'s in-place updates: element-wise in-place methods on tensors the function created
under a tensor condition (`out = torch.zeros(...); if s > 0: out.add_(x); out.mul_(2)`),
run on copies and kept with torch.where whatever the condition (update_where_ok: grad mode
off, the arguments unable to make the update raise). Both sides; an integer target
updated by an int; a float argument held in a name; updates one after the other."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, x: torch.Tensor, scale: float):
        out = torch.zeros(3, 4)
        counts = torch.zeros(3, dtype=torch.int64)
        s = x.sum()
        if s > 0:
            out.add_(x)
            out.mul_(scale)
            counts.add_(1)
        if s < -1:
            out.sub_(x)
            out.clamp_(min=-2.0)
        if out.mean() > 0.5:
            out.sqrt_()
        return out, counts


torch.manual_seed(0)
INPUTS = [
    (torch.rand(3, 4), 2.0),
    (-torch.rand(3, 4), 0.5),
    (torch.zeros(3, 4), 3.0),
    (torch.rand(3, 4) * 0.1, 1.0),
]
EXPECTED_BREAKS = (3, 0)
EXPECTED_GRAPHS = (4, 1)
EXPECTED_TAGS = [("GM101", "where")] * 3
EXPECTED_DECLINES = []
