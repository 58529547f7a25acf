"""[Defer] `if logger.isEnabledFor(logging.DEBUG):` over debug calls only (the idiom library
code uses to skip formatting debug text; Dynamo breaks on isEnabledFor): the calls are
deferred and, while compiling, the test is skipped (`runtime.is_compiling() or ...`), since
each logger method tests its own level when it replays. A test over calls at another level
is kept."""
import logging

import torch

logger = logging.getLogger("cases.defer.logging_level_test")


def ENTRY(x: torch.Tensor):
    y = x * 2
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("y sum %s", y.sum())
        logger.debug(f"y max {y.max()}")
    if logger.isEnabledFor(logging.DEBUG):
        logger.info("kept: info under a debug test %s", y.min())
    return y + 1


def reset():
    logger.setLevel(logging.DEBUG)


INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (5, 1)
EXPECTED_GRAPHS = (5, 2)
EXPECTED_TAGS = [("GM103", "defer"), ("GM103", "defer"), ("GM103", "defer")]
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
