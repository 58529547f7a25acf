"""[Where] declined: tail duplication computes the rest of the function on both sides, so it
takes at most 12 statements. From huggingface/diffusers:
src/diffusers/schedulers/scheduling_euler_discrete.py: EulerDiscreteScheduler.step (the
Python-number churn `gamma`), followed by a longer update than the step's own."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, sample: torch.Tensor, sigma: torch.Tensor, s_churn: float = 0.5):
        gamma = min(s_churn / 5, 2**0.5 - 1) if sigma <= 5.0 else 0.0
        sigma_hat = sigma * (gamma + 1)
        a = sample * sigma_hat
        b = a + sigma
        c = b * a
        d = c - b
        e = d * sigma_hat
        f = e + a
        g = f * b
        h = g - c
        i = h * d
        j = i + e
        k = j * f
        return k + g


torch.manual_seed(0)
INPUTS = [(torch.randn(2, 3), torch.tensor(3.1)), (torch.randn(2, 3), torch.tensor(7.0))]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "tail duplication: the tail after the branch is longer than 12")]
