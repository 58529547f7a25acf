"""[Defer] logger.warning in a module's forward."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class ENTRY(nn.Module):
    def forward(self, x: torch.Tensor):
        y = x * 0.5
        logger.warning("scaled input of shape %s to %s", tuple(x.shape), y)
        return y + 1


INPUTS = [(torch.ones(2, 2),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM103", "defer")]
