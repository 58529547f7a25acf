"""[Where] declined: tail duplication does not run a submodule on both sides (it would cost
a second forward, and may not be pure). From huggingface/diffusers:
src/diffusers/schedulers/scheduling_euler_discrete.py: EulerDiscreteScheduler.step (the
Python-number churn `gamma`), with the scaled sample fed to a layer after it, as a pipeline
step calls its UNet."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, sample: torch.Tensor, sigma: torch.Tensor, s_churn: float = 0.5):
        gamma = min(s_churn / 5, 2**0.5 - 1) if sigma <= 5.0 else 0.0
        h = self.lin(sample * (gamma + 1))
        return h * sigma


torch.manual_seed(0)
INPUTS = [(torch.randn(2, 3), torch.tensor(3.1)), (torch.randn(2, 3), torch.tensor(7.0))]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "tail duplication: the tail calls a submodule")]
