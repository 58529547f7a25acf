"""[Cond] checked: a branch calls helpers whose parameters are unannotated. meta-llama's
RMSNorm normalises with `x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)`
(llama/model.py, RMSNorm._norm), here a module function called where the activations
overflow, and a method of the module that rescales them. torch.cond traces a helper only
when every call in it is a torch function or a tensor method: `x.pow(...)` is one when the
argument passed for `x` is a tensor, so the helper's parameters are taken to be what the
call passes, and the call's argument is checked before the statement (`runtime.tensors(h)`).
A parameter given a number (`eps`) is only used in arithmetic, where no check is needed."""

import torch
from torch import nn


def rms_norm(x, eps):
    variance = x.pow(2).mean(-1, keepdim=True)
    return x * torch.rsqrt(variance + eps)


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.eps = 1e-6

    def rescale(self, h, scale):
        shifted = h - h.mean(-1, keepdim=True)
        return shifted.mul(scale)

    def forward(self, x):
        h = self.lin(x)
        if h.abs().max() > 10:
            h = rms_norm(h, self.eps)
        if h.sum() < 0:
            h = self.rescale(h, 0.5)
        return h


INPUTS = [(torch.ones(2, 4) * 30,), (torch.ones(2, 4) * 0.1,), (-torch.ones(2, 4) * 30,)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "cond"), ("GM101", "cond")]
GRAD = True
