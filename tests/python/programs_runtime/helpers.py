"""A helper in its own file, called only on the path the profiling run does not take."""

import torch


def shift(y: torch.Tensor):
    if y.max() > 5:  # SITE: helper
        z = y - 5
    else:
        z = y + 5
    return z
