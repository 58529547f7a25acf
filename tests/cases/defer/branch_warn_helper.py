"""[Defer] of a whole branch whose body calls a helper that only warns: torchmetrics'
Pearson correlation (Lightning-AI/torchmetrics:
src/torchmetrics/functional/regression/pearson.py, `_pearson_corrcoef_compute`) warns
through `rank_zero_warn` when a variance is near zero. The helper runs whatever the
condition while compiling (runtime.call_when), its call recorded with the condition and its
stacklevel=3 naming the compute function's caller; the operands, whose types the text does
not show, are checked to be tensors."""
import warnings

import torch


def rank_zero_warn(message, category=UserWarning, stacklevel=2):
    """Warns once per process in the original (rank zero only)."""
    warnings.warn(message, category, stacklevel=stacklevel + 1)


def _pearson_compute(var_x, var_y, corr_xy, nb):
    var_x = var_x / (nb - 1)
    var_y = var_y / (nb - 1)
    corr_xy = corr_xy / (nb - 1)
    bound = 1e-3
    if (var_x < bound).any() or (var_y < bound).any():
        rank_zero_warn(
            "The variance of predictions or target is close to zero."
            f" (currently using {var_x.dtype})",
            UserWarning,
        )
    zero_var_mask = (var_x < bound) | (var_y < bound)
    corrcoef = torch.where(~zero_var_mask, corr_xy / (var_x * var_y).sqrt(), float("nan"))
    return torch.clamp(corrcoef, -1.0, 1.0)


def ENTRY(var_x, var_y, corr_xy, nb):
    corrcoef = _pearson_compute(var_x, var_y, corr_xy, nb)
    return corrcoef.nan_to_num(0.0)


INPUTS = [
    (torch.tensor([2.0, 0.0]), torch.tensor([3.0, 1.0]), torch.tensor([1.5, 0.0]), 5),
    (torch.tensor([2.0, 1.0]), torch.tensor([3.0, 1.0]), torch.tensor([1.5, 0.5]), 5),
    (torch.tensor([2.0, 1.0], dtype=torch.float64), torch.tensor([0.0, 1.0], dtype=torch.float64),
     torch.tensor([1.5, 0.5], dtype=torch.float64), 3),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "defer"), ("GM104", "defer")]
