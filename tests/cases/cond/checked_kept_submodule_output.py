"""[Cond] checked: the paper's Figure 1 as people write it, with a submodule in the branch
(`h = self.lin(x); if h.sum() > 0: h = self.proj(h)`). The branch that is not taken keeps
`h`, which torch.cond returns as it was: it must be a tensor, and the text cannot show that
(`self.lin` is a submodule). The mended code checks `runtime.tensors(h)` before the
statement, and runs the original `if` where it fails (eagerly, or for a value that is not
a plain tensor)."""

import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        h = self.lin(x)
        if h.sum() > 0:
            h = self.proj(h)
        return h.relu()


INPUTS = [(torch.ones(2, 4),), (-torch.ones(2, 4) * 3,)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
GRAD = True
