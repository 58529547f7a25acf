"""torchmetrics' Pearson correlation: when either variance is near zero, it warns through
`rank_zero_warn(..., UserWarning)` (a `warnings.warn` helper) with the dtype in an f-string;
the condition is a tensor predicate (`(var_x < bound).any() or (var_y < bound).any()`)."""

import math
import warnings

import torch

ORIGIN = "Lightning-AI/torchmetrics: src/torchmetrics/functional/regression/pearson.py: _pearson_corrcoef_compute"
CATEGORY = "mixed"


def rank_zero_warn(message, category=UserWarning, stacklevel=2):
    warnings.warn(message, category, stacklevel=stacklevel + 1)


def _pearson_corrcoef_compute(var_x, var_y, corr_xy, nb):
    # prevent overwrite the inputs
    var_x = var_x / (nb - 1)
    var_y = var_y / (nb - 1)
    corr_xy = corr_xy / (nb - 1)
    # if var_x, var_y is float16 and on cpu, make it bfloat16 as sqrt is not supported for float16
    # on cpu, remove this after https://github.com/pytorch/pytorch/issues/54774 is fixed
    if var_x.dtype == torch.float16 and var_x.device == torch.device("cpu"):
        var_x = var_x.bfloat16()
        var_y = var_y.bfloat16()

    bound = math.sqrt(torch.finfo(var_x.dtype).eps)
    if (var_x < bound).any() or (var_y < bound).any():
        rank_zero_warn(
            "The variance of predictions or target is close to zero. This can cause instability in Pearson correlation"
            "coefficient, leading to wrong results. Consider re-scaling the input if possible or computing using a"
            f"larger dtype (currently using {var_x.dtype}). Setting the correlation coefficient to nan.",
            UserWarning,
        )

    zero_var_mask = (var_x < bound) | (var_y < bound)
    corrcoef = torch.full_like(corr_xy, float("nan"), device=corr_xy.device, dtype=corr_xy.dtype)
    valid_mask = ~zero_var_mask
    corrcoef = torch.where(valid_mask, corr_xy / (var_x * var_y).sqrt(), corrcoef)
    return torch.clamp(corrcoef, -1.0, 1.0)


ENTRY = _pearson_corrcoef_compute
INPUTS = [
    (torch.tensor([2.0, 0.0]), torch.tensor([3.0, 1.0]), torch.tensor([1.5, 0.0]), torch.tensor(5)),
    (torch.tensor([2.0, 1.0]), torch.tensor([3.0, 1.0]), torch.tensor([1.5, 0.5]), torch.tensor(5)),
]
