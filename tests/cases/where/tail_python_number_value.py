"""[Where] tail duplication of a conditional expression whose value is a Python number, from
huggingface/diffusers: src/diffusers/schedulers/scheduling_euler_discrete.py:
EulerDiscreteScheduler.step (`gamma = min(s_churn / (len(self.sigmas) - 1), 2**0.5 - 1) if
s_tmin <= sigma <= s_tmax else 0.0`, then `sigma_hat = sigma * (gamma + 1)`). torch.where
cannot hold the float: a float32 tensor in its place computes `gamma + 1` in float32 where
Python computes it in float64 (for 1,403 of 20,000 churn values in [0, 0.41],
`sigma * (gamma + 1)` came out different). So the rest of the function, up to its return,
becomes a nested function each side calls with its own float, and torch.where selects the
returned tensors; `s_churn` is checked to be a Python number at run time."""
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
    (torch.randn(2, 3), torch.tensor(3.1), 0.37),
    # not a Python number: the original statement runs
    (torch.randn(2, 3), torch.tensor(3.1), torch.tensor(0.37)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
