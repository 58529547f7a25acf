"""[Defer] warnings.warn with a category; the replayed warning keeps the call's line."""
import warnings

import torch


def ENTRY(x: torch.Tensor):
    y = x.clamp(min=0)
    warnings.warn("negative inputs are clamped", UserWarning)
    return y


INPUTS = [(torch.tensor([-1.0, 1.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM104", "defer")]
