"""[Where]: a branch changes in place a tensor the function made and holds alone (a graph
layer's message aggregation: `out = torch.zeros(...)`, then `out.index_add_(0, idx, x)` when
every index is valid, `out - 1` otherwise). torch.where would need the change made whatever
the condition; torch.cond runs the side taken only, its branch function changing a copy
bound to the name (`out = out.clone()`, then the call as written) and returning it. Nothing
else holds the tensor, so nothing can tell a copy was changed. Under grad mode off only
(`with torch.no_grad():` here: inference); in training the original statement runs
(`decline_in_place_copy_in_training.py`)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x, idx):
        with torch.no_grad():
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
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
EXPECTED_DECLINES = []
