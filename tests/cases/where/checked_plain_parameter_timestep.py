"""[Where] checked: a conditional expression between two buffers on a value computed from a
parameter that has neither annotation nor default: diffusers' DDIMScheduler.step
(src/diffusers/schedulers/scheduling_ddim.py: `alpha_prod_t_prev =
self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod`).
Pipelines pass the timestep as a 0-d tensor picked from `scheduler.timesteps`, tests and
scripts as an int. Both values are tensors, so the timestep is assumed to be a tensor and
checked at run time (`runtime.tensors(prev_timestep, ...)`); with an int the original
statement runs. The buffer read by the timestep is a masked read (runtime.index_where)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        betas = torch.linspace(0.0001, 0.02, 10)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))
        self.register_buffer("final_alpha_cumprod", torch.tensor(1.0))
        self.num_train_timesteps = 10
        self.num_inference_steps = 5

    def forward(self, model_output, timestep, sample):
        prev_timestep = timestep - self.num_train_timesteps // self.num_inference_steps
        alpha_prod_t = self.alphas_cumprod[timestep]
        alpha_prod_t_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod
        beta_prod_t = 1 - alpha_prod_t
        pred_original_sample = (sample - beta_prod_t ** (0.5) * model_output) / alpha_prod_t ** (0.5)
        pred_sample_direction = (1 - alpha_prod_t_prev) ** (0.5) * model_output
        return alpha_prod_t_prev ** (0.5) * pred_original_sample + pred_sample_direction


torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 2, 3), torch.tensor(7), torch.randn(1, 2, 3)),
    (torch.randn(1, 2, 3), torch.tensor(1), torch.randn(1, 2, 3)),
    (torch.randn(1, 2, 3), 7, torch.randn(1, 2, 3)),
    (torch.randn(1, 2, 3), 1, torch.randn(1, 2, 3)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
