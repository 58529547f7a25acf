"""[Defer] a logger held as an attribute, as projects write it: `self.logger =
logging.getLogger(...)` in `__init__` (here of a base class), and `self.logger.info(...)` /
`self.logger.debug(...)` in the step, one of them in a loop (a break there makes Dynamo give
up on the whole frame). An attribute the class sets to anything else besides a logger
(`self.sink`: a logger in the base, a collector of its own in a subclass) is not taken for
one: its `info` call is left as it is."""
import logging

import torch
from torch import nn


class Logged(nn.Module):
    def __init__(self):
        super().__init__()
        self.logger = logging.getLogger("graphmend.cases.logger_attribute")
        self.sink = logging.getLogger("graphmend.cases.sink")


class ENTRY(Logged):
    def __init__(self):
        super().__init__()
        self.scale = nn.Linear(3, 3)

    def forward(self, x):
        y = self.scale(x)
        self.logger.info("scaled %s", y.shape)
        for step in range(2):
            y = y * 2
            self.logger.debug(f"step {step}: {(y > 0).sum()} positive")
        return y


class Collector:
    """Keeps messages in a list; its `info` is not a logger's."""

    def __init__(self):
        self.lines = []

    def info(self, message, *args):
        self.lines.append(message % args)


class Reassigned(Logged):
    def __init__(self):
        super().__init__()
        self.sink = Collector()

    def forward(self, x: torch.Tensor):
        self.sink.info("total %s", x.sum())
        return x * 2


torch.manual_seed(0)
INPUTS = [(torch.randn(2, 3),), (torch.zeros(1, 3),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM103", "defer"), ("GM103", "defer")]
