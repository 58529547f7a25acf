"""[Where]: `variance = 0` before a tensor if whose branch calls a helper, then the rest of
the block to the return (diffusers' DDPMScheduler.step: noise only past the last step).
torch.where would run the helper on both sides, and torch.cond cannot return the Python
number the other side keeps. So each branch function runs the rest of the block to the
function's return, reading the number from the enclosing function, and torch.cond returns
what the function returns. The helper's own conditional expression on the timestep is its
own site, mended there (torch.where), which Dynamo's trace of the branch checks."""
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
        return pred


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor(4), torch.randn(2, 3), torch.randn(2, 3)),
    (torch.randn(2, 3), torch.tensor(0), torch.randn(2, 3), torch.randn(2, 3)),
    (torch.randn(2, 3), torch.tensor(1.0), torch.randn(2, 3), torch.randn(2, 3)),
]
GRAD = True
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (4, 1)
EXPECTED_TAGS = [("GM101", "cond"), ("GM101", "where")]
EXPECTED_DECLINES = []
