"""[Defer] `logger.warning_once`, installed on logging.Logger exactly as transformers does:
it logs a message once per process (an lru_cache), so the replay must go through the same
method and log once too."""
import functools
import logging

import torch


@functools.lru_cache(None)
def warning_once(self, *args, **kwargs):
    self.warning(*args, **kwargs)


if not hasattr(logging.Logger, "warning_once"):
    logging.Logger.warning_once = warning_once

logger = logging.getLogger("graphmend.cases.once")


def reset():
    logging.Logger.warning_once.cache_clear()


def ENTRY(x: torch.Tensor):
    y = x + 1
    logger.warning_once("`use_cache=True` is incompatible with gradient checkpointing")
    return y * 2


INPUTS = [(torch.tensor([1.0]),), (torch.tensor([2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM103", "defer")]
