"""torchmetrics' retrieval precision: the input check rejects non-binary targets (`if not
allow_non_binary_target and (target.max() > 1 or target.min() < 0): raise ValueError(...)`),
and a query without a relevant document returns zero early (`if not target.sum(): return
tensor(0.0, device=preds.device)`): a guard and an early return on tensor values."""

from typing import Optional, Tuple

import torch
from torch import Tensor, tensor

ORIGIN = "Lightning-AI/torchmetrics: src/torchmetrics/functional/retrieval/precision.py: retrieval_precision"
CATEGORY = "mixed"


def _check_retrieval_target_and_prediction_types(
    preds: Tensor,
    target: Tensor,
    allow_non_binary_target: bool = False,
) -> Tuple[Tensor, Tensor]:
    if target.dtype not in (torch.bool, torch.long, torch.int) and not torch.is_floating_point(target):
        raise ValueError("`target` must be a tensor of booleans, integers or floats")

    if not preds.is_floating_point():
        raise ValueError("`preds` must be a tensor of floats")

    if not allow_non_binary_target and (target.max() > 1 or target.min() < 0):
        raise ValueError("`target` must contain `binary` values")

    target = target.float() if target.is_floating_point() else target.long()
    preds = preds.float()

    return preds.flatten(), target.flatten()


def _check_retrieval_functional_inputs(
    preds: Tensor,
    target: Tensor,
    allow_non_binary_target: bool = False,
) -> Tuple[Tensor, Tensor]:
    if preds.shape != target.shape:
        raise ValueError("`preds` and `target` must be of the same shape")

    if not preds.numel() or not preds.size():
        raise ValueError("`preds` and `target` must be non-empty and non-scalar tensors")

    return _check_retrieval_target_and_prediction_types(preds, target, allow_non_binary_target=allow_non_binary_target)


def retrieval_precision(preds: Tensor, target: Tensor, top_k: Optional[int] = None, adaptive_k: bool = False) -> Tensor:
    preds, target = _check_retrieval_functional_inputs(preds, target)

    if not isinstance(adaptive_k, bool):
        raise ValueError("`adaptive_k` has to be a boolean")

    if top_k is None or (adaptive_k and top_k > preds.shape[-1]):
        top_k = preds.shape[-1]

    if not (isinstance(top_k, int) and top_k > 0):
        raise ValueError("`top_k` has to be a positive integer or None")

    if not target.sum():
        return tensor(0.0, device=preds.device)

    relevant = target[preds.topk(min(top_k, preds.shape[-1]), dim=-1)[1]].sum().float()
    return relevant / top_k


ENTRY = retrieval_precision
torch.manual_seed(0)
INPUTS = [
    (torch.rand(5), torch.tensor([1, 0, 1, 0, 0]), 2),
    (torch.rand(5), torch.tensor([0, 0, 0, 0, 0]), 2),
    (torch.rand(5), torch.tensor([1, 0, 2, 0, 0]), 2),
    (torch.rand(5), torch.tensor([True, False, True, True, False]), 8, True),
]
