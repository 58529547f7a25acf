"""[Cond]: a branch that calls a method and leaves a variable bound to a Python number as it
was, from huggingface/diffusers: src/diffusers/schedulers/scheduling_ddpm.py:
DDPMScheduler.step (`variance = 0` then `if t > 0: ... variance = (self._get_variance(t,
...) ** 0.5) * variance_noise`). torch.cond's false branch cannot return the int 0 (it
returns tensors only), so each branch function runs the rest of the block to the return,
reading the number from the enclosing function, and returns what the function returns."""
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
GRAD = True
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
EXPECTED_DECLINES = []
