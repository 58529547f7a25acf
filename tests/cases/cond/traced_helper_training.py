"""[Cond] verified by tracing, in training: a module's branch calls a helper with a loop
over a constant range (only Dynamo's trace shows torch.cond traces it) on a submodule's
output. torch.cond differentiates the branch taken: the gradients of the input and of the
layer's parameters are the original's on both sides."""

import torch
from torch import nn


def smooth(h, steps):
    for _ in range(steps):
        h = (h + h.roll(1, -1)) / 2
    return h


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            y = smooth(h, 2) * 3
        else:
            y = h - 1
        return y


torch.manual_seed(0)
INPUTS = [(torch.ones(2, 4) * 5,), (-torch.ones(2, 4) * 5,)]
GRAD = True
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
