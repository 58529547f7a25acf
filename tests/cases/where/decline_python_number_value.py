"""[Where] declined: a conditional expression whose value is a Python number, from
huggingface/diffusers: src/diffusers/schedulers/scheduling_euler_discrete.py:
EulerDiscreteScheduler.step (`gamma = min(s_churn / (len(self.sigmas) - 1), 2**0.5 - 1) if
s_tmin <= sigma <= s_tmax else 0.0`, then `sigma_hat = sigma * (gamma + 1)`). torch.where
needs tensors on both sides, and a float32 tensor in the place of the float computes
`gamma + 1` in float32 where Python computes it in float64 (for 1,403 of 20,000 churn values
in [0, 0.41], `sigma * (gamma + 1)` came out different), so the conditional stays."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, sample: torch.Tensor, sigma: torch.Tensor, s_churn: float = 0.5):
        sample = sample * 1.0
        gamma = min(s_churn / 5, 2**0.5 - 1) if sigma <= 5.0 else 0.0
        sigma_hat = sigma * (gamma + 1)
        return sample * sigma_hat


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor(3.1)),
    (torch.randn(2, 3), torch.tensor(7.0)),
    (torch.randn(2, 3), torch.tensor(3.1), 1.7),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "is a Python number")]
