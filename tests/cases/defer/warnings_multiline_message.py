"""[Defer] warnings.warn whose message spans lines inside the call: the rewritten message
is one line, padded inside the parentheses, so the code after it keeps its lines (the
second warning reports its own line)."""
import warnings

import torch


def ENTRY(x: torch.Tensor):
    y = x.clamp(min=0)
    warnings.warn(
        f"{x.shape[0]} inputs, "
        "negative ones are clamped",
        UserWarning,
    )
    warnings.warn("the second warning", RuntimeWarning)
    return y


INPUTS = [(torch.tensor([-1.0, 1.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM104", "defer"), ("GM104", "defer")]
