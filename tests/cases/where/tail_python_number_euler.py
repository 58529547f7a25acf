"""[Where] tail duplication, the whole Euler step, from huggingface/diffusers:
src/diffusers/schedulers/scheduling_euler_discrete.py: EulerDiscreteScheduler.step. The
churn `gamma` is a Python float chosen by a chained comparison on a 0-d sigma, and the rest
of the step reads it: `sigma * (gamma + 1)` in float64 arithmetic, and `if gamma > 0:`, a
Python test (static on each side once gamma is a float there). Each side calls the rest of
the step with its own gamma; torch.where selects the two returned tensors. The schedule
index `self.sigmas[step + 1]` reads nothing the sides assign and may raise (IndexError past
the last step): it is evaluated once, before both sides, as the original evaluates it once.
Inputs drive both sides, gamma 0.0 on the true side (`s_churn=0.0`), the cap
(`s_churn=3.0`), and a tensor churn (the original runs). (Past the last step, compiled code
raises IndexError with Dynamo's own message, `select(): index s0 + 1 out of range`, as it
does for any index it traces into a graph.)"""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("sigmas", torch.tensor([14.6, 7.0, 3.1, 1.2, 0.4, 0.0]))

    def forward(self, model_output: torch.Tensor, sample: torch.Tensor, noise: torch.Tensor,
                sigma: torch.Tensor, step: int = 1, s_churn: float = 0.5, s_tmax: float = 5.0):
        s_tmin = 0.0
        gamma = min(s_churn / (len(self.sigmas) - 1), 2**0.5 - 1) if s_tmin <= sigma <= s_tmax else 0.0

        sigma_hat = sigma * (gamma + 1)

        if gamma > 0:
            eps = noise * 1.0
            sample = sample + eps * (sigma_hat**2 - sigma**2) ** 0.5

        # the predicted original sample, then the ODE derivative
        pred_original_sample = sample - sigma_hat * model_output
        derivative = (sample - pred_original_sample) / sigma_hat
        dt = self.sigmas[step + 1] - sigma_hat
        prev_sample = sample + derivative * dt
        return prev_sample, pred_original_sample


torch.manual_seed(0)
_x = [torch.randn(1, 2, 3) for _ in range(3)]
INPUTS = [
    (*_x, torch.tensor(3.1), 2),
    (*_x, torch.tensor(14.6), 0),
    (*_x, torch.tensor(14.6), 0, 0.5, 20.0),
    (*_x, torch.tensor(1.2), 3, 0.0),
    (*_x, torch.tensor(1.2), 3, 3.0),
    (*_x, torch.tensor(0.4), 4, 0.27),
    (*_x, torch.tensor(3.1), 2, torch.tensor(0.3)),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where")]
