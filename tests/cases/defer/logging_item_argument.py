"""[Defer]: a logger call handed `t.item()` as a %-format argument (`logger.info("step loss
%.4f (%d tokens)", loss.item(), n.item())`, the training-step report of most projects). The
record keeps `t`, a tensor, and converts it when the call replays, handing the logger the
number itself (the spec's template is None), so `%.4f` and `%d` format exactly what the
original's did and no `.item()` runs in the graph. A warnings.warn with an f-string field
`{t.item():.2f}` is converted the same way."""
import logging
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x: torch.Tensor, mask: torch.Tensor):
        loss = (self.lin(x) ** 2).mean()
        tokens = mask.sum()
        logger.warning("step loss %.4f (%d tokens)", loss.item(), tokens.item())
        warnings.warn(f"mean activation {loss.item():.2f}")
        return loss * 2


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor([1, 0, 1])),
    (torch.randn(4, 3), torch.tensor([1, 1, 1, 1])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM103", "defer"), ("GM104", "defer"), ("GM106", "defer"), ("GM106", "defer"), ("GM106", "defer")]
