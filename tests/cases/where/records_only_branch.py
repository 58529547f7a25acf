"""[Where]: a branch on tensor data that only prints and logs (a debugging report of large
activations, with `.item()` arguments). Nothing is selected: while compiling, the arguments
are computed whatever the condition (each pure; a `t.item()` argument records `t`, converted
when the call replays) and each call is recorded with the condition, replayed after the
compiled region only if it held (`runtime.record_ok`: the condition is a one-element bool
tensor). Eagerly the original if runs."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        h = self.proj(x)
        scale = h.norm(dim=-1, keepdim=True)
        if (scale > 10).any():
            print("large activations", scale.max().item())
            logger.warning("max norm %.3f over %d rows", scale.max().item(), scale.shape[0])
        return h / scale.clamp(min=1.0)


torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 4) * 100.0,),  # large: reported
    (torch.randn(3, 4) * 0.01,),  # small: nothing printed or logged
]
EXPECTED_BREAKS = (3, 0)
EXPECTED_GRAPHS = (4, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM102", "where"), ("GM103", "where"), ("GM106", "where"), ("GM106", "where")]
EXPECTED_DECLINES = []
