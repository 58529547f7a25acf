"""[Defer] declines: the result is used, a user object, self, logger.exception and
exc_info. Declined prints go through call_now (keeps the output order)."""
import logging

import torch

logger = logging.getLogger(__name__)


class Status:
    def __init__(self):
        self.calls = 0

    def __str__(self):
        return f"Status({self.calls})"


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.status = Status()

    def forward(self, x: torch.Tensor):
        y = x + 1
        printed = print("y", y)
        print(self.status, y)
        print(self)
        try:
            y = y / x.sum()
        except ZeroDivisionError:
            logger.exception("division failed")
        logger.info("with exc_info", exc_info=True)
        return y if printed is None else y * 2


EXPECTED_TAGS = [
    ("GM102", "declined"),
    ("GM102", "declined"),
    ("GM102", "declined"),
    ("GM103", "declined"),
    ("GM103", "declined"),
]
EXPECTED_DECLINES = [
    ("GM102", "result is used"),
    ("GM102", "an instance of a class of this module"),
    ("GM102", "user object"),
    ("GM103", "logger.exception"),
    ("GM103", "exc_info"),
]
