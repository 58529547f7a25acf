"""[Where] a branch value read by a computed index, from huggingface/diffusers:
src/diffusers/schedulers/scheduling_ddim.py: DDIMScheduler.step (`alpha_prod_t_prev =
self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod`).
torch.where evaluates both sides, and the original reads the buffer only when the condition
holds (`prev_timestep = -32` is out of range there), so the read takes the index masked by
the condition: runtime.index_where, under runtime.index_where_ok (a plain buffer, a 0-d
integer index, the condition one bool, a compile boundary that can run the call again).
Inputs: the condition held and not, a far out-of-range index off the path (masked, no
error), and an out-of-range index on the path: IndexError with the original's message,
eagerly and compiled (the in-graph range assert makes the boundary run the call again)."""
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
    (torch.randn(2, 3), torch.tensor(2)),
    (torch.randn(2, 3), torch.tensor(14)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
