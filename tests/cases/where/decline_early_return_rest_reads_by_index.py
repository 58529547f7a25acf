"""[Where] declined: an early return whose rest of the function reads by a tensor index,
from Lightning-AI/torchmetrics: src/torchmetrics/functional/retrieval/precision.py:
retrieval_precision (`if not target.sum(): return tensor(0.0, device=preds.device)`, then
`target[preds.topk(k, dim=-1)[1]]`). The rest of the block would be computed whatever the
condition, and an index read raises for some values where the original returned early, so
the branch keeps its break."""

import torch
from torch import tensor


def ENTRY(preds: torch.Tensor, target: torch.Tensor, top_k: int = 2):
    if not target.sum():
        return tensor(0.0, device=preds.device)

    relevant = target[preds.topk(min(top_k, preds.shape[-1]), dim=-1)[1]].sum().float()
    return relevant / top_k


torch.manual_seed(0)
INPUTS = [(torch.rand(5), torch.tensor([1, 0, 1, 0, 0])), (torch.rand(5), torch.zeros(5, dtype=torch.long))]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "indexes by a computed index")]

torch.compile(ENTRY)  # traced: an entry point of the mender
