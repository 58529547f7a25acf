"""[Where] declined: a read whose index the branch itself computes, from huggingface/diffusers:
src/diffusers/schedulers/scheduling_ddpm.py: DDPMScheduler.step (`prev_t =
self.previous_timestep(t)`, then `self.alphas_cumprod[prev_t]`), with the previous step
taken inside the branch. The masked read (runtime.index_where) needs its index checked
before the statement (runtime.index_where_ok), where `prev_t` is not computed yet."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        betas = torch.linspace(0.0001, 0.02, 10)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))
        self.register_buffer("one", torch.tensor(1.0))

    def forward(self, sample, t: torch.Tensor):
        if t > 0:
            prev_t = t - 1
            alpha_prod_t_prev = self.alphas_cumprod[prev_t]
        else:
            alpha_prod_t_prev = self.one
        return sample * alpha_prod_t_prev


torch.manual_seed(0)
INPUTS = [(torch.randn(2, 3), torch.tensor(4)), (torch.randn(2, 3), torch.tensor(0))]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (3, 3)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "indexes by a value the branch computes")]
