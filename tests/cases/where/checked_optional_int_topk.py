"""[Where] checked: an early return on a tensor value, then the rest of the block reads by
the top-k indices with `k` an optional int parameter bound to a shape when None:
torchmetrics' retrieval precision (Lightning-AI/torchmetrics: src/torchmetrics/functional/
retrieval/precision.py: retrieval_precision: `if top_k is None: top_k = preds.shape[-1]`,
`if not target.sum(): return tensor(0.0, ...)`, `relevant =
target[preds.topk(min(top_k, preds.shape[-1]), dim=-1)[1]].sum().float()`). `min(top_k,
...)` and `topk` cannot raise when `top_k` is an int, which `runtime.python_ints(top_k)`
checks (a float would make `topk` raise on a side the original may not run);
the read by the top-k indices is a masked read (`runtime.index_where`), whose assert runs
the call again eagerly where an index is out of range on the path."""
from typing import Optional

import torch
from torch import Tensor, tensor


def ENTRY(preds: Tensor, target: Tensor, top_k: Optional[int] = None):
    if top_k is None:
        top_k = preds.shape[-1]
    if not target.sum():
        return tensor(0.0, device=preds.device)
    relevant = target[preds.topk(min(top_k, preds.shape[-1]), dim=-1)[1]].sum().float()
    return relevant / top_k


torch.manual_seed(0)
INPUTS = [
    (torch.rand(5), torch.tensor([1, 0, 1, 0, 0]), 2),
    (torch.rand(5), torch.tensor([0, 0, 0, 0, 0]), 2),
    (torch.rand(5), torch.tensor([1, 0, 1, 1, 0])),
    (torch.rand(5), torch.tensor([1, 0, 1]), 2),
    (torch.rand(5), torch.tensor([1, 0, 1, 0, 0]), 2.5),
    (torch.rand(5), torch.tensor([0, 0, 0, 0, 0]), 2.5),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
