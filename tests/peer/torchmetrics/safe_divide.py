"""torchmetrics' _safe_divide: division with a fallback value where the denominator is
zero, written with `torch.where`: no break."""

import torch

ORIGIN = "Lightning-AI/torchmetrics: src/torchmetrics/utilities/compute.py: _safe_divide"
CATEGORY = "no_break"


def _safe_divide(num, denom, zero_division=0.0):
    num = num if num.is_floating_point() else num.float()
    denom = denom if denom.is_floating_point() else denom.float()
    zero_division_tensor = torch.tensor(zero_division, dtype=num.dtype).to(num.device, non_blocking=True)
    return torch.where(denom != 0, num / denom, zero_division_tensor)


def precision(tp, fp):
    return _safe_divide(tp, tp + fp)


ENTRY = precision
INPUTS = [(torch.tensor([3, 0, 2]), torch.tensor([1, 0, 2]))]
