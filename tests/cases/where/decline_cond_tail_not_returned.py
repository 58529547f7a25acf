"""[Where] declines a tensor if that keeps a Python number (`variance = 0`) on one side and
calls a helper on the other when the rest of the block is not assignments up to a return
(here a print): torch.cond cannot return the number, and the rest of the block cannot be
run inside its branch functions."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("betas", torch.linspace(0.0001, 0.02, 10))
        self.register_buffer("one", torch.tensor(1.0))

    def _get_variance(self, t: torch.Tensor):
        prev_t = t - 1
        beta = self.betas.max() * t / 10
        beta_prev = beta * 0.5 if prev_t >= 0 else self.one
        variance = (1 - beta_prev) * beta
        return torch.clamp(variance, min=1e-20)

    def forward(self, model_output, t: torch.Tensor, sample, noise):
        pred = sample - 0.1 * model_output
        variance = 0
        if t > 0:
            variance = (self._get_variance(t) ** 0.5) * noise
        pred = pred + variance
        print("variance added")
        return pred


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor(4), torch.randn(2, 3), torch.randn(2, 3)),
    (torch.randn(2, 3), torch.tensor(0), torch.randn(2, 3), torch.randn(2, 3)),
    (torch.randn(2, 3), torch.tensor(1.0), torch.randn(2, 3), torch.randn(2, 3)),
]
GRAD = True
EXPECTED_BREAKS = (3, 1)
EXPECTED_GRAPHS = (4, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "where"), ("GM102", "defer")]
EXPECTED_DECLINES = [("GM101", "the rest of the block does not end in a return")]
