"""[Where] checked: a branch on a value picked from an attribute its class sets only to
tensors, from huggingface/diffusers: src/diffusers/schedulers/scheduling_euler_discrete.py:
EulerDiscreteScheduler (a plain class, not an nn.Module: `set_timesteps` sets
`self.sigmas = torch.from_numpy(...)`, `step` reads `sigma = self.sigmas[self.step_index]`).
Nothing is annotated: the class's own assignments are the evidence that `self.sigmas` holds a
tensor, and the run-time check (`tensors(self.sigmas, sigma, ...)`) decides. Both sides of
the conditional are tensors (`sigma * 1.25`, `sigma`). Inputs drive
both sides, a schedule set from a list (not a tensor: the original path
runs) and one set from a tensor."""
import numpy as np
import torch


class EulerScheduler:
    def __init__(self):
        self.sigmas = None
        self.step_index = 0

    def set_timesteps(self, sigmas):
        self.sigmas = torch.from_numpy(np.asarray(sigmas, dtype=np.float32))

    def step(self, model_output, sample, s_tmin=0.0, s_tmax=5.0):
        y = sample * 1.0
        sigma = self.sigmas[self.step_index]
        sigma_hat = sigma * 1.25 if s_tmin <= sigma <= s_tmax else sigma
        return y - sigma_hat * model_output


class ENTRY(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scheduler = EulerScheduler()
        self.scheduler.set_timesteps([14.6, 7.0, 3.1, 1.2, 0.4, 0.0])

    def forward(self, model_output, sample, step_index, schedule=None):
        if schedule is not None:
            self.scheduler.sigmas = schedule
        self.scheduler.step_index = step_index
        return self.scheduler.step(model_output, sample)


torch.manual_seed(0)
_x = [torch.randn(2, 3) for _ in range(2)]
INPUTS = [(*_x, 2), (*_x, 0), (*_x, 5), (*_x, 1, [1.0, 2.0]), (*_x, 1, torch.tensor([9.0, 2.0]))]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
