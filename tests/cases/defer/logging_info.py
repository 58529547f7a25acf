"""[Defer] logger.info with %-style arguments; the replayed record keeps the call's line."""
import logging

import torch

logger = logging.getLogger("graphmend.cases.info")


def ENTRY(x: torch.Tensor):
    y = x.softmax(dim=-1)
    logger.info("probabilities %s (n=%d)", y, y.numel())
    return y


INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM103", "defer")]
