"""[Where] tail duplication under autograd, from huggingface/diffusers:
src/diffusers/schedulers/scheduling_euler_discrete.py: EulerDiscreteScheduler.step (the churn
`gamma` a Python float on each side, the rest of the step computed on both). The returned
values require grad, so where_ok refuses torch.where (the unselected side would get
gradients): the original branch selects the side already computed, and gradients are those
of the original. Run with gradients enabled (GRAD = True)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor([1.5, -0.5, 2.0]))

    def forward(self, sample: torch.Tensor, sigma: torch.Tensor, s_churn: float = 0.5):
        h = sample * self.scale
        gamma = min(s_churn / 5, 2**0.5 - 1) if sigma <= 5.0 else 0.0
        sigma_hat = sigma * (gamma + 1)
        if gamma > 0:
            h = h + (sigma_hat**2 - sigma**2) ** 0.5
        return h * sigma_hat


GRAD = True
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor(3.1)),
    (torch.randn(2, 3), torch.tensor(7.0)),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
