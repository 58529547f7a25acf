"""[Defer] warnings.warn with a stacklevel, in helpers: the replayed warning names the frame
the stacklevel names, found from the calls Dynamo traced (the helper's caller for 2, its
caller's caller for 3), as the original's does. The shapes are diffusers' `deprecate`
(huggingface/diffusers: src/diffusers/utils/deprecation_utils.py, stacklevel=2 from a
helper) and torchmetrics' `rank_zero_warn` (Lightning-AI/torchmetrics:
src/torchmetrics/utilities/prints.py, `stacklevel + 1` over a default of 2)."""
import warnings

import torch


def deprecate(message):
    warnings.warn(message, FutureWarning, stacklevel=2)


def rank_zero_warn(message, category=UserWarning, stacklevel=2):
    warnings.warn(message, category, stacklevel=stacklevel + 1)


def scale(x, factor):
    if factor != 2:
        deprecate(f"factor={factor} is deprecated")
    rank_zero_warn("scaling")
    warnings.warn("positional level", UserWarning, 2)
    return x * factor


def ENTRY(x: torch.Tensor, factor: int):
    y = scale(x, factor)
    return y + 1


INPUTS = [(torch.tensor([1.0, -2.0]), 3), (torch.tensor([0.5]), 2)]
EXPECTED_BREAKS = (0, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM104", "defer"), ("GM104", "defer"), ("GM104", "defer")]
