"""[Defer] a branch deferred whole on an `or` of tensor conditions: torchmetrics'
`_pearson_corrcoef_compute` (Lightning-AI/torchmetrics:
src/torchmetrics/functional/regression/pearson.py) warns when either variance is near zero,
with the dtype in the message. Here the warning is issued with `warnings.warn` itself (what its
`rank_zero_warn` helper does, with stacklevel 1) and a print reports the bound: the condition
becomes `torch.logical_or(...)` while compiling, and both calls are recorded with it."""
import math
import warnings

import torch


def ENTRY(var_x: torch.Tensor, var_y: torch.Tensor, corr_xy: torch.Tensor):
    bound = math.sqrt(torch.finfo(var_x.dtype).eps)
    if (var_x < bound).any() or (var_y < bound).any():
        message = "The variance of predictions or target is close to zero."
        if var_x.dtype != torch.float64:
            message += f" Consider computing using a larger dtype (currently using {var_x.dtype})."
        warnings.warn(message, UserWarning)
        print("variance bound:", bound, var_x)
    zero_var_mask = (var_x < bound) | (var_y < bound)
    corrcoef = torch.full_like(corr_xy, float("nan"))
    corrcoef = torch.where(~zero_var_mask, corr_xy / (var_x * var_y).sqrt(), corrcoef)
    return torch.clamp(corrcoef, -1.0, 1.0)


INPUTS = [
    (torch.tensor([2.0, 0.0]), torch.tensor([3.0, 1.0]), torch.tensor([1.5, 0.0])),
    (torch.tensor([2.0, 1.0]), torch.tensor([3.0, 0.0]), torch.tensor([1.5, 0.5])),
    (torch.tensor([2.0, 1.0]), torch.tensor([3.0, 1.0]), torch.tensor([1.5, 0.5])),
    (torch.tensor([2.0, 0.0], dtype=torch.float64), torch.tensor([3.0, 1.0], dtype=torch.float64),
     torch.tensor([1.5, 0.0], dtype=torch.float64)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "defer"), ("GM102", "defer"), ("GM104", "defer")]

torch.compile(ENTRY)  # traced: an entry point of the mender
