"""torchmetrics' perplexity update: the probabilities of the target tokens are picked with a
boolean mask of the non-ignored positions (`probs[:, target].diagonal()[mask]`), whose length
depends on the data. Not fixable by design (data-dependent output shape)."""

import torch

ORIGIN = "Lightning-AI/torchmetrics: src/torchmetrics/functional/text/perplexity.py: _perplexity_update"
CATEGORY = "out_of_scope"


def _check_shape_and_type_consistency(preds, target):
    if len(preds.shape) != 3:
        raise ValueError(
            "Input tensor `preds` is expected to have 3 dimensions, [batch_size, seq_len, vocab_size],"
            f" but got {len(preds.shape)}."
        )
    if not preds.is_floating_point():
        raise TypeError(f"Input tensor `preds` is expected to be of floating point type but got {preds.dtype}.")


def _perplexity_update(preds, target, ignore_index=None):
    _check_shape_and_type_consistency(preds, target)

    probs = torch.nn.functional.softmax(preds.reshape(-1, preds.shape[-1]), dim=1)
    target = target.reshape(-1)

    if ignore_index is not None:
        mask = target.ne(ignore_index)
        target = target.where(target != ignore_index, torch.tensor(0, device=target.device))
    else:
        mask = torch.ones_like(target, dtype=torch.bool)

    probs = probs[:, target].diagonal()[mask]
    total_log_probs = -probs.log().sum()
    count = mask.sum()

    return total_log_probs, count


ENTRY = _perplexity_update
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3, 5), torch.tensor([[1, 2, 0], [4, 0, 0]]), 0),
    (torch.randn(2, 3, 5), torch.tensor([[1, 2, 0], [4, 0, 0]])),
]
