"""[Where] a read by a computed index on an inner side of an elif chain: the lookup of
huggingface/diffusers: src/diffusers/schedulers/scheduling_ddim.py: DDIMScheduler.step
(`self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else ...`) with both ends of the
range handled, negative timesteps counted from the end as Python indexes them. The middle
read is masked by its whole path, `not (t < -10) and t < 10`, not by its own condition
alone: at t = -20 the inner condition holds but the read is off the path (no range
failure, no run again; tests/python/test_index_where.py counts them)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        betas = torch.linspace(0.0001, 0.02, 10)
        self.register_buffer("alphas_cumprod", torch.cumprod(1.0 - betas, dim=0))
        self.register_buffer("one", torch.tensor(1.0))

    def forward(self, sample, timestep: torch.Tensor):
        if timestep < -10:
            alpha = self.one
        elif timestep < 10:
            alpha = self.alphas_cumprod[timestep]
        else:
            alpha = self.alphas_cumprod[-1]
        return sample * alpha


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor(3)),
    (torch.randn(2, 3), torch.tensor(-3)),
    (torch.randn(2, 3), torch.tensor(-10)),
    (torch.randn(2, 3), torch.tensor(-20)),
    (torch.randn(2, 3), torch.tensor(15)),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where")]
