"""[Where] checked: the paper's Figure 1 as people write it (arXiv 2509.16248, Fig. 1): no
annotations, the branch on a submodule's output. Nothing in the text shows `h` is a tensor,
so the rewrite runs under `runtime.tensors(h)` and the original `if` runs otherwise."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        if h.sum() > 0:
            y = h * 2
        else:
            y = h - 1
        return y.relu()


INPUTS = [(torch.ones(2, 4),), (-torch.ones(2, 4) * 3,), (torch.zeros(1, 4),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
