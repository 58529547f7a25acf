"""[Where] a chained comparison on a 0-d tensor, as diffusers' EulerDiscreteScheduler.step
tests its sigma (`s_tmin <= sigma <= s_tmax`, huggingface/diffusers:
src/diffusers/schedulers/scheduling_euler_discrete.py: EulerDiscreteScheduler.step), here
guarding the noise the step adds: `torch.logical_and((s_tmin <= sigma), (sigma <= s_tmax))`,
exactly Python's `bool(s_tmin <= sigma) and bool(sigma <= s_tmax)` on one element (two
breaks in the original, one per `bool`)."""

import torch


def ENTRY(sample: torch.Tensor, sigma: torch.Tensor, noise: torch.Tensor, s_tmin: float = 0.0, s_tmax: float = 5.0):
    if s_tmin <= sigma <= s_tmax:
        sample = sample + noise * sigma
    return sample


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor(1.5), torch.randn(2, 3)),
    (torch.randn(2, 3), torch.tensor(-0.5), torch.randn(2, 3)),
    (torch.randn(2, 3), torch.tensor(7.0), torch.randn(2, 3)),
    (torch.randn(2, 3), torch.tensor(5.0), torch.randn(2, 3)),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
