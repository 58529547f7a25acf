"""[Where] declined: the retrieval precision of checked_optional_int_topk.py (torchmetrics'
retrieval_precision), with `top_k` rebound to a value the text does not show to be a number
(`top_k = choose_k(preds)`, a helper of unknown result) and, separately, augmented
(`top_k += 1`): `min(top_k, ...)` may raise then, and the branch is left as it is."""
from typing import Optional

import torch
from torch import Tensor, tensor


def choose_k(preds):
    return preds.shape[-1] // 2


def rebound(preds: Tensor, target: Tensor, top_k: Optional[int] = None):
    if top_k is None:
        top_k = choose_k(preds)
    if not target.sum():
        return tensor(0.0, device=preds.device)
    return target[preds.topk(min(top_k, preds.shape[-1]), dim=-1)[1]].sum().float() / top_k


def augmented(preds: Tensor, target: Tensor, top_k: Optional[int] = None):
    top_k += 1
    if not target.sum():
        return tensor(0.0, device=preds.device)
    return target[preds.topk(min(top_k, preds.shape[-1]), dim=-1)[1]].sum().float() / top_k


def ENTRY(preds: Tensor, target: Tensor, top_k: int):
    return rebound(preds, target), augmented(preds, target, top_k)


torch.manual_seed(0)
INPUTS = [(torch.rand(5), torch.tensor([1, 0, 1, 0, 0]), 2),
          (torch.rand(5), torch.tensor([0, 0, 0, 0, 0]), 2)]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (4, 4)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "indexes by a computed index"), ("GM101", "indexes by a computed index")]

torch.compile(ENTRY)  # traced: an entry point of the mender
