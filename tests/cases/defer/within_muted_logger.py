"""[Defer] A log record inside the `with` of a context manager that disables the logger
until it exits: Dynamo does not trace the change to the logger, so the frame runs as the
original's does, and the record inside is dropped as the original drops it; the record after
the block is made."""
import contextlib
import logging

import torch

logger = logging.getLogger(__name__)


@contextlib.contextmanager
def quiet(target):
    target.disabled = True
    try:
        yield
    finally:
        target.disabled = False


def ENTRY(x):
    y = x + 1
    with quiet(logger):
        logger.warning("hidden %s", y.sum())
    logger.warning("shown %s", y.mean())
    return y * 3


INPUTS = [(torch.arange(4.0),), (torch.zeros(2),)]
EXPECTED_BREAKS = (5, 3)
EXPECTED_GRAPHS = (0, 0)
EXPECTED_TAGS = [("GM103", "defer"), ("GM103", "defer")]
