"""Euler discrete scheduler step: the churn `gamma` is a conditional expression over a
chained comparison on a 0-d sigma picked from the schedule buffer
(`... if s_tmin <= sigma <= s_tmax else 0.0`), then `if gamma > 0:` adds noise."""

import torch
from torch import nn

ORIGIN = "huggingface/diffusers: src/diffusers/schedulers/scheduling_euler_discrete.py: EulerDiscreteScheduler.step"
CATEGORY = "where"


class EulerDiscreteScheduler(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("sigmas", torch.tensor([14.6, 7.0, 3.1, 1.2, 0.4, 0.0]))
        self.step_index = 1

    def step(self, model_output, sample, noise, s_churn=0.5, s_tmin=0.0, s_tmax=5.0, s_noise=1.0):
        sample = sample.to(torch.float32)
        sigma = self.sigmas[self.step_index]

        gamma = min(s_churn / (len(self.sigmas) - 1), 2**0.5 - 1) if s_tmin <= sigma <= s_tmax else 0.0

        sigma_hat = sigma * (gamma + 1)

        if gamma > 0:
            eps = noise * s_noise
            sample = sample + eps * (sigma_hat**2 - sigma**2) ** 0.5

        # 1. compute predicted original sample (x_0) from sigma-scaled predicted noise
        pred_original_sample = sample - sigma_hat * model_output

        # 2. Convert to an ODE derivative
        derivative = (sample - pred_original_sample) / sigma_hat
        dt = self.sigmas[self.step_index + 1] - sigma_hat
        prev_sample = sample + derivative * dt
        return prev_sample, pred_original_sample

    def forward(self, model_output, sample, noise, step_index):
        self.step_index = step_index
        return self.step(model_output, sample, noise)


ENTRY = EulerDiscreteScheduler
torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 2, 3), torch.randn(1, 2, 3), torch.randn(1, 2, 3), 2),
    (torch.randn(1, 2, 3), torch.randn(1, 2, 3), torch.randn(1, 2, 3), 0),
]
