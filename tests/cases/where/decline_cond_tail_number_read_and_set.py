"""[Where] declines a tensor if whose branch calling a helper reads the Python number kept
from before the if and assigns it again (`variance = variance + ...`): a torch.cond branch
function reads the number from the enclosing function, and one that also assigns the name
would make it its own local, unbound where it is read."""
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
            variance = variance + (self._get_variance(t) ** 0.5) * noise
        pred = pred + variance
        return pred


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor(4), torch.randn(2, 3), torch.randn(2, 3)),
    (torch.randn(2, 3), torch.tensor(0), torch.randn(2, 3), torch.randn(2, 3)),
    (torch.randn(2, 3), torch.tensor(1.0), torch.randn(2, 3), torch.randn(2, 3)),
]
GRAD = True
EXPECTED_BREAKS = (2, 1)
EXPECTED_GRAPHS = (4, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "where")]
EXPECTED_DECLINES = [("GM101", "is read and reassigned in a torch.cond branch")]
