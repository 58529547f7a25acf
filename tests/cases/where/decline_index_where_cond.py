"""[Where] declined: a read by a computed index beside a branch that calls a submodule, the
lookup of huggingface/diffusers: src/diffusers/schedulers/scheduling_ddim.py:
DDIMScheduler.step (`self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else ...`)
with the other side a layer. Such a branch is selected with torch.cond over the branches as
written, and torch.cond cannot trace a 0-d tensor index (Dynamo reads it with .item(): a
failed compile inside torch.cond); the masked read is a torch.where form only."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("alphas_cumprod", torch.linspace(0.9, 0.1, 10).reshape(10, 1))
        self.proj = nn.Linear(1, 1)

    def forward(self, prev_timestep: torch.Tensor, fallback: torch.Tensor):
        if prev_timestep >= 0:
            alpha = self.alphas_cumprod[prev_timestep]
        else:
            alpha = self.proj(fallback)
        return alpha * 2


torch.manual_seed(0)
INPUTS = [
    (torch.tensor(3), torch.randn(1)),
    (torch.tensor(-2), torch.randn(1)),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "indexes by a computed index")]
