"""[Defer] warnings.warn with and without a category."""
import warnings

import torch


@torch.compile
def forward(x: torch.Tensor):
    y = x.clamp(min=0)
    warnings.warn("negative inputs are clamped")
    warnings.warn(f"clamped to {y.min()}", RuntimeWarning)
    return y


ENTRY = forward.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [(torch.tensor([-1.0, 2.0]),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM104", "defer"), ("GM104", "defer")]
