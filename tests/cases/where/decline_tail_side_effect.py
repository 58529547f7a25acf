"""[Where] declined: tail duplication needs a tail without side effects (both sides run it).
From huggingface/diffusers: src/diffusers/schedulers/scheduling_euler_discrete.py:
EulerDiscreteScheduler.step, which ends by advancing its step counter (`self._step_index
+= 1`, written here as an attribute store) after the Python-number churn `gamma`: run on
both sides, the counter would advance twice."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.step_index = 0

    def forward(self, sample: torch.Tensor, sigma: torch.Tensor, s_churn: float = 0.5):
        gamma = min(s_churn / 5, 2**0.5 - 1) if sigma <= 5.0 else 0.0
        sigma_hat = sigma * (gamma + 1)
        self.step_index = self.step_index + 1
        return sample * sigma_hat


torch.manual_seed(0)
INPUTS = [(torch.randn(2, 3), torch.tensor(3.1)), (torch.randn(2, 3), torch.tensor(7.0))]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "tail duplication: the tail assigns `self.step_index")]
