"""[Where] declined: a branch value indexed by the tensor the branch tests, from
huggingface/diffusers: src/diffusers/schedulers/scheduling_ddim.py: DDIMScheduler.step
(`alpha_prod_t_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else
self.final_alpha_cumprod`). torch.where would index on the side the original does not take
(`prev_timestep = -32` is out of range: IndexError where the original returns), and
torch.cond cannot trace a 0-d tensor index (Dynamo reads it with .item(), a failed compile
inside torch.cond), so the conditional stays."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        betas = torch.linspace(0.0001, 0.02, 10)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))
        self.register_buffer("final_alpha_cumprod", torch.tensor(1.0))

    def forward(self, sample, timestep: torch.Tensor):
        prev_timestep = timestep - 2
        alpha_prod_t_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod
        return sample * alpha_prod_t_prev**0.5


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor(7)),
    (torch.randn(2, 3), torch.tensor(1)),
    (torch.randn(2, 3), torch.tensor(-30)),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "indexes by a computed index")]
