"""[Where]: an if/elif on tensor data whose elif only logs (an audio loader's peak
normalisation that warns of a near-silent clip, with a `.item()` argument). The if selects
the normalised signal; the elif's call is recorded with its leaf's path condition (`not
peak > 1 and peak < 1e-4`), replayed after the compiled region only if that held. Eagerly
the original if/elif runs."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class ENTRY(nn.Module):
    def forward(self, wav):
        peak = wav.abs().max()
        if peak > 1.0:
            wav = wav / peak
        elif peak < 1e-4:
            logger.warning("near silent input, peak %.2e", peak.item())
        return wav


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 16) * 3.0,),  # clipping: normalised
    (torch.randn(2, 16) * 1e-6,),  # near silent: warned
    (torch.randn(2, 16) * 0.1,),  # neither
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where"), ("GM103", "where"), ("GM106", "where")]
EXPECTED_DECLINES = []
