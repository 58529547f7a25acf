"""DDIM scheduler step with the timestep a 0-d tensor (as pipelines pass it, from
`scheduler.timesteps`): the previous alpha product is picked from a buffer by a tensor index
in a conditional expression (`alphas_cumprod[prev_timestep] if prev_timestep >= 0 else
final_alpha_cumprod`)."""

import torch
from torch import nn

ORIGIN = "huggingface/diffusers: src/diffusers/schedulers/scheduling_ddim.py: DDIMScheduler.step"
CATEGORY = "where"


class DDIMScheduler(nn.Module):
    def __init__(self):
        super().__init__()
        betas = torch.linspace(0.0001, 0.02, 10)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))
        self.register_buffer("final_alpha_cumprod", torch.tensor(1.0))
        self.num_train_timesteps = 10
        self.num_inference_steps = 5

    def step(self, model_output, timestep, sample, eta=0.0):
        # 1. get previous step value (=t-1)
        prev_timestep = timestep - self.num_train_timesteps // self.num_inference_steps

        # 2. compute alphas, betas
        alpha_prod_t = self.alphas_cumprod[timestep]
        alpha_prod_t_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod

        beta_prod_t = 1 - alpha_prod_t

        # 3. compute predicted original sample from predicted noise also called
        pred_original_sample = (sample - beta_prod_t ** (0.5) * model_output) / alpha_prod_t ** (0.5)
        pred_epsilon = model_output

        # 6. compute "direction pointing to x_t" of formula (12) from https://huggingface.co/papers/2010.02502
        pred_sample_direction = (1 - alpha_prod_t_prev) ** (0.5) * pred_epsilon

        # 7. compute x_t without "random noise" of formula (12) from https://huggingface.co/papers/2010.02502
        prev_sample = alpha_prod_t_prev ** (0.5) * pred_original_sample + pred_sample_direction
        return prev_sample

    def forward(self, model_output, timestep, sample):
        return self.step(model_output, timestep, sample)


ENTRY = DDIMScheduler
torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 2, 3), torch.tensor(7), torch.randn(1, 2, 3)),
    (torch.randn(1, 2, 3), torch.tensor(1), torch.randn(1, 2, 3)),
]
