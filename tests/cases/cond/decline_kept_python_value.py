"""[Cond] declined: a branch that calls a method and leaves a variable bound to a Python
number as it was, from huggingface/diffusers: src/diffusers/schedulers/scheduling_ddpm.py:
DDPMScheduler.step (`variance = 0` then `if t > 0: ... variance = (self._get_variance(t,
...) ** 0.5) * variance_noise`). torch.cond's false branch would have to return the int 0,
and torch.cond returns tensors only, so the branch stays."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("betas", torch.linspace(0.0001, 0.02, 10))

    def _get_variance(self, t):
        return torch.clamp(self.betas.sum() * t, min=1e-20)

    def forward(self, sample, t: torch.Tensor, variance_noise):
        pred_prev_sample = sample * 0.9
        variance = 0
        if t > 0:
            variance = (self._get_variance(t) ** 0.5) * variance_noise
        return pred_prev_sample + variance


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor(4), torch.randn(2, 3)),
    (torch.randn(2, 3), torch.tensor(0), torch.randn(2, 3)),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "keeps its value in a torch.cond branch")]
