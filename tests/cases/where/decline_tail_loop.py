"""[Where] declined: tail duplication takes straight-line code only; a loop after the branch
is not duplicated. From huggingface/diffusers:
src/diffusers/schedulers/scheduling_euler_discrete.py: EulerDiscreteScheduler.step (the
Python-number churn `gamma`), followed by a fixed number of refinement steps."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, sample: torch.Tensor, sigma: torch.Tensor, s_churn: float = 0.5):
        gamma = min(s_churn / 5, 2**0.5 - 1) if sigma <= 5.0 else 0.0
        for _ in range(2):
            sample = sample * (gamma + 1)
        return sample * sigma


torch.manual_seed(0)
INPUTS = [(torch.randn(2, 3), torch.tensor(3.1)), (torch.randn(2, 3), torch.tensor(7.0))]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "tail duplication: the tail after the branch holds a loop")]
