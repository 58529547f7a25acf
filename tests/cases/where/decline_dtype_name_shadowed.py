"""[Where] declines: `int` here is a name of the module, not Python's int, so `mask.to(int)`
converts to whatever the module bound (a device, a dtype, a tensor: the analysis does not
follow it, and a conversion to another tensor's device may raise): the branch value is not
shown pure, and the branch stays as written."""

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
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "not pure")]
