"""[Defer] Prints and log records inside the `with` of the model's own context manager (an
EMA scope that swaps the weights in and out, announcing each swap): deferred behind the
run-time check that sys.stdout and sys.stderr are still the boundary's, replayed in order
with the manager's own announcements."""
import contextlib
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 3)
        self.register_buffer("ema_weight", torch.full((3, 3), 0.1))

    @contextlib.contextmanager
    def ema_scope(self, context=None):
        saved = self.linear.weight.detach().clone()
        with torch.no_grad():
            self.linear.weight.copy_(self.ema_weight)
        if context is not None:
            print(f"{context}: switched to EMA weights")
        try:
            yield None
        finally:
            with torch.no_grad():
                self.linear.weight.copy_(saved)
            if context is not None:
                print(f"{context}: restored training weights")

    def forward(self, x):
        with self.ema_scope("sampling"):
            h = self.linear(x)
            print("sampled", h.shape[0], "rows")
            logger.info("mean %s", h.mean())
        return self.linear(h).relu()


INPUTS = [(torch.randn(2, 3),), (torch.randn(4, 3),)]
EXPECTED_BREAKS = (6, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM102", "defer"), ("GM102", "defer"), ("GM102", "defer"), ("GM103", "defer")]
