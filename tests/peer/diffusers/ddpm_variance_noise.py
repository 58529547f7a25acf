"""DDPM scheduler step with a tensor timestep: noise is added only past the last step
(`variance = 0; if t > 0: ... variance = ... * variance_noise`), and the previous alpha is
a conditional expression on the timestep (`... if prev_t >= 0 else self.one`)."""

import torch
from torch import nn

ORIGIN = "huggingface/diffusers: src/diffusers/schedulers/scheduling_ddpm.py: DDPMScheduler.step"
CATEGORY = "where"


class DDPMScheduler(nn.Module):
    def __init__(self):
        super().__init__()
        betas = torch.linspace(0.0001, 0.02, 10)
        self.register_buffer("betas", betas)
        self.register_buffer("alphas", 1.0 - betas)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))
        self.register_buffer("one", torch.tensor(1.0))

    def previous_timestep(self, timestep):
        return timestep - 1

    def _get_variance(self, t, predicted_variance=None):
        prev_t = self.previous_timestep(t)
        alpha_prod_t = self.alphas_cumprod[t]
        alpha_prod_t_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else self.one
        current_beta_t = 1 - alpha_prod_t / alpha_prod_t_prev
        variance = (1 - alpha_prod_t_prev) / (1 - alpha_prod_t) * current_beta_t
        variance = torch.clamp(variance, min=1e-20)
        return variance

    def step(self, model_output, timestep, sample, variance_noise):
        t = timestep
        prev_t = self.previous_timestep(t)

        # 1. compute alphas, betas
        alpha_prod_t = self.alphas_cumprod[t]
        alpha_prod_t_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else self.one
        beta_prod_t = 1 - alpha_prod_t
        beta_prod_t_prev = 1 - alpha_prod_t_prev
        current_alpha_t = alpha_prod_t / alpha_prod_t_prev
        current_beta_t = 1 - current_alpha_t

        # 2. compute predicted original sample from predicted noise also called
        pred_original_sample = (sample - beta_prod_t ** (0.5) * model_output) / alpha_prod_t ** (0.5)

        # 4. Compute coefficients for pred_original_sample x_0 and current sample x_t
        pred_original_sample_coeff = (alpha_prod_t_prev ** (0.5) * current_beta_t) / beta_prod_t
        current_sample_coeff = current_alpha_t ** (0.5) * beta_prod_t_prev / beta_prod_t

        # 5. Compute predicted previous sample µ_t
        pred_prev_sample = pred_original_sample_coeff * pred_original_sample + current_sample_coeff * sample

        # 6. Add noise
        variance = 0
        if t > 0:
            variance = (self._get_variance(t) ** 0.5) * variance_noise

        pred_prev_sample = pred_prev_sample + variance
        return pred_prev_sample

    def forward(self, model_output, timestep, sample, variance_noise):
        return self.step(model_output, timestep, sample, variance_noise)


ENTRY = DDPMScheduler
torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 2, 3), torch.tensor(4), torch.randn(1, 2, 3), torch.randn(1, 2, 3)),
    (torch.randn(1, 2, 3), torch.tensor(0), torch.randn(1, 2, 3), torch.randn(1, 2, 3)),
]
