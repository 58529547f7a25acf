"""fairseq's trainer after clipping: a non-finite gradient norm aborts the step (`if not
torch.isfinite(grad_norm).all(): raise FloatingPointError("gradients are Nan/Inf")`). The
norm comes from fairseq's own clip_grad_norm_ over the parameters' gradients."""

import torch
from torch import nn

ORIGIN = "facebookresearch/fairseq: fairseq/trainer.py: Trainer.train_step"
CATEGORY = "trap"


def clip_grad_norm_(grads, max_norm):
    total_norm = torch.norm(torch.stack([torch.norm(g, p=2, dtype=torch.float32) for g in grads]))
    if max_norm > 0:
        max_norm = float(max_norm)
        clip_coef = (max_norm / (total_norm + 1e-6)).clamp_(max=1)
        for g in grads:
            g.mul_(clip_coef)
    return total_norm


class Trainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.clip_norm = 1.0

    def forward(self, grad_a, grad_b):
        grads = [grad_a * 1.0, grad_b * 1.0]
        grad_norm = clip_grad_norm_(grads, self.clip_norm)
        # check that grad norms are consistent across workers (single worker here)
        if not torch.isfinite(grad_norm).all():
            # check local gradnorm single GPU case, trigger NanDetector
            raise FloatingPointError("gradients are Nan/Inf")
        return grad_norm, grads[0], grads[1]


ENTRY = Trainer
torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 2), torch.randn(2)),
    (torch.randn(3, 2), torch.tensor([1.0, float("nan")])),
]
