"""torchmetrics' binary stat-scores format: floating predictions outside [0, 1] are taken
as logits and passed through a sigmoid (`if not torch.all((preds >= 0) * (preds <= 1)):
preds = preds.sigmoid()`), then thresholded."""

import torch

ORIGIN = "Lightning-AI/torchmetrics: src/torchmetrics/functional/classification/stat_scores.py: _binary_stat_scores_format"
CATEGORY = "where"


def _binary_stat_scores_format(preds, target, threshold=0.5, ignore_index=None):
    if preds.is_floating_point():
        if not torch.all((preds >= 0) * (preds <= 1)):
            # preds is logits, convert with sigmoid
            preds = preds.sigmoid()
        preds = preds > threshold

    preds = preds.reshape(preds.shape[0], -1)
    target = target.reshape(target.shape[0], -1)

    if ignore_index is not None:
        idx = target == ignore_index
        target = target.clone()
        target[idx] = -1

    return preds, target


ENTRY = _binary_stat_scores_format
INPUTS = [
    (torch.tensor([[0.2, 0.8], [0.6, 0.1]]), torch.tensor([[0, 1], [1, 0]])),
    (torch.tensor([[-2.0, 0.8], [3.0, 0.1]]), torch.tensor([[0, 1], [1, 0]]), 0.5, 1),
]
