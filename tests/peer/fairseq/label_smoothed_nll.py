"""fairseq's label-smoothed NLL loss: padding positions are zeroed with `masked_fill_`, with
conditions only on Python arguments, so nothing breaks."""

import torch

ORIGIN = "facebookresearch/fairseq: fairseq/criterions/label_smoothed_cross_entropy.py: label_smoothed_nll_loss"
CATEGORY = "no_break"


def label_smoothed_nll_loss(lprobs, target, epsilon, ignore_index=None, reduce=True):
    if target.dim() == lprobs.dim() - 1:
        target = target.unsqueeze(-1)
    nll_loss = -lprobs.gather(dim=-1, index=target)
    smooth_loss = -lprobs.sum(dim=-1, keepdim=True)
    if ignore_index is not None:
        pad_mask = target.eq(ignore_index)
        nll_loss.masked_fill_(pad_mask, 0.0)
        smooth_loss.masked_fill_(pad_mask, 0.0)
    else:
        nll_loss = nll_loss.squeeze(-1)
        smooth_loss = smooth_loss.squeeze(-1)
    if reduce:
        nll_loss = nll_loss.sum()
        smooth_loss = smooth_loss.sum()
    eps_i = epsilon / (lprobs.size(-1) - 1)
    loss = (1.0 - epsilon - eps_i) * nll_loss + eps_i * smooth_loss
    return loss, nll_loss


ENTRY = label_smoothed_nll_loss
torch.manual_seed(0)
INPUTS = [
    (torch.randn(4, 5).log_softmax(-1), torch.tensor([1, 0, 3, 1]), 0.1, 1),
    (torch.randn(4, 5).log_softmax(-1), torch.tensor([1, 0, 3, 1]), 0.1, None, False),
]
