"""[Defer] A warning_once-style logger method (as transformers adds to loggers): it logs
a message once per process, so its replay must go through the same method."""
import functools
import logging

import torch


class OnceLogger(logging.Logger):
    @functools.lru_cache(None)
    def warning_once(self, *args, **kwargs):
        self.warning(*args, **kwargs)


logger = OnceLogger("graphmend.programs.once")


def reset():
    OnceLogger.warning_once.cache_clear()


def ENTRY(x: torch.Tensor):
    y = x + 1
    logger.warning_once("`use_cache=True` is incompatible with gradient checkpointing")
    return y * 2


INPUTS = [(torch.tensor([1.0]),), (torch.tensor([2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM103", "defer")]
