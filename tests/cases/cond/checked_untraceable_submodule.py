"""[Cond] checked: a branch calls a submodule of the user's own class whose forward Dynamo
cannot trace whole (it reads a Python number with `.item()`, as capacity-limited experts
do). torch.cond fails the compile on such a branch instead of breaking the graph, so the
mended code asks `runtime.cond_safe(self.expert)`, which holds only for torch.nn layers
it knows torch.cond traces: here it does not, and the original branch runs (with its
break). The expert's read is [Scalar]'s captured read (it only scales the output), so the
expert itself no longer breaks the graph."""

import torch
from torch import nn


class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, h):
        capacity = int(h.abs().sum().item())
        return self.proj(h) * capacity


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.expert = Expert()
        self.skip = nn.Linear(4, 4)

    def forward(self, h: torch.Tensor):
        if h.mean() > 0:
            y = self.expert(h)
        else:
            y = self.skip(h)
        return y


INPUTS = [(torch.ones(2, 4),), (-torch.ones(2, 4),)]
EXPECTED_BREAKS = (2, 1)
EXPECTED_GRAPHS = (3, 2)
EXPECTED_TAGS = [("GM101", "cond"), ("GM106", "scalar_capture")]
EXPECTED_DECLINES = []
