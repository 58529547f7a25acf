"""[Where] declines at trace time: `int` here is a name of the module, not Python's int, so
`mask.to(int)` converts to whatever the module bound (a device, a dtype, a tensor: the
analysis does not follow it, and a conversion to another tensor's device may raise). The
branch value is not shown pure, so torch.where declines it; torch.cond, which runs the side
taken only, is emitted behind runtime.cond_on, and Dynamo's trace is the check: its
branches return float64 and float32, the trace fails, and the frame is converted again
with the original statement (the break stays; nothing is raised that the original does not
raise)."""

import torch
from torch import nn


int = torch.float64  # noqa: A001 - shadows the builtin on purpose


class ENTRY(nn.Module):
    def forward(self, target, mask):
        if not torch.all(mask == 1):
            target = target * mask.to(int)
        return target


INPUTS = [(torch.ones(2, 5), torch.zeros(2, 5)), (torch.ones(2, 5), torch.ones(2, 5))]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "cond")]
EXPECTED_DECLINES = []
