"""[Defer] logging calls: %-args, a multi-line call with comments, logger.log, module
logging functions; the site is the line CPython reports for the call."""
import logging

import torch

logger = logging.getLogger(__name__)


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        h = x.relu()
        logger.info("h sum %s over %d values", h.sum(), h.numel())
        logger.warning(
            "large activations: %s",  # reported on the first line
            h.max(),
        )
        (logger
            .debug)("reported on the line of the method name: %s", h)
        logger.log(logging.INFO, "level given: %s", h.mean())
        return h


ENTRY = Model
INPUTS = [(torch.tensor([1.0, -2.0]),)]
EXPECTED_BREAKS = (7, 0)
EXPECTED_GRAPHS = (6, 1)
EXPECTED_TAGS = [("GM103", "defer"), ("GM103", "defer"), ("GM103", "defer"), ("GM103", "defer")]
