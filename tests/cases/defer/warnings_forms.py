"""[Defer] warnings.warn with and without a category."""
import warnings

import torch


@torch.compile
def forward(x: torch.Tensor):
    y = x.clamp(min=0)
    warnings.warn("negative inputs are clamped")
    warnings.warn(f"clamped to {y.min()}", RuntimeWarning)
    return y
