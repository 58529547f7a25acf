"""generative-models' LambdaWarmUpCosineScheduler, the learning-rate multiplier its
DiffusionEngine hands to `LambdaLR` (`lr_lambda=scheduler.schedule`, stepped every training
step): `schedule(n)` prints the step and the last multiplier every `verbosity_interval`
steps (`print(f"current step: {n}, recent lr-multiplier: {self.last_lr}")`), then rises
linearly over the warm-up and follows a cosine from `lr_max` down to `lr_min` (the progress
clamped at 1), and keeps the multiplier in `self.last_lr`. A training step computes its
learning rate as `LambdaLR.get_lr` does for its step (`base_lr * lr_lambda(step)`;
`LambdaLR.step` itself is a function Dynamo skips) and scales its loss by it. Plain
torch.compile does not break: the step is a Python int and the printed values are constants,
so Dynamo traces the branches and the `print` without a break."""

import numpy as np
import torch
from torch import nn


ORIGIN = "Stability-AI/generative-models: sgm/lr_scheduler.py: LambdaWarmUpCosineScheduler.schedule"
CATEGORY = "no_break"


class LambdaWarmUpCosineScheduler:
    """
    note: use with a base_lr of 1.0
    """

    def __init__(self, warm_up_steps, lr_min, lr_max, lr_start, max_decay_steps,
                 verbosity_interval=0):
        self.lr_warm_up_steps = warm_up_steps
        self.lr_start = lr_start
        self.lr_min = lr_min
        self.lr_max = lr_max
        self.lr_max_decay_steps = max_decay_steps
        self.last_lr = 0.0
        self.verbosity_interval = verbosity_interval

    def schedule(self, n, **kwargs):
        if self.verbosity_interval > 0:
            if n % self.verbosity_interval == 0:
                print(f"current step: {n}, recent lr-multiplier: {self.last_lr}")
        if n < self.lr_warm_up_steps:
            lr = (self.lr_max - self.lr_start) / self.lr_warm_up_steps * n + self.lr_start
            self.last_lr = lr
            return lr
        else:
            t = (n - self.lr_warm_up_steps) / (self.lr_max_decay_steps - self.lr_warm_up_steps)
            t = min(t, 1.0)
            lr = self.lr_min + 0.5 * (self.lr_max - self.lr_min) * (1 + np.cos(t * np.pi))
            self.last_lr = lr
            return lr

    def __call__(self, n, **kwargs):
        return self.schedule(n, **kwargs)


class TrainStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(3, 2)
        self.base_lr = 1.0
        self.scheduler = LambdaWarmUpCosineScheduler(
            warm_up_steps=2, lr_min=0.1, lr_max=1.0, lr_start=0.01, max_decay_steps=5,
            verbosity_interval=2)
        self.lr_lambda = self.scheduler.schedule

    def forward(self, x, global_step):
        # what LambdaLR's get_lr computes for the step: base_lr * lr_lambda(last_epoch)
        lr = self.base_lr * self.lr_lambda(global_step)
        return self.net(x).pow(2).mean() * lr


ENTRY = TrainStep
torch.manual_seed(0)
INPUTS = [
    (torch.randn(4, 3), 0),  # warm-up, printed
    (torch.randn(4, 3), 1),  # warm-up, silent
    (torch.randn(4, 3), 3),  # the cosine, silent
    (torch.randn(4, 3), 4),  # the cosine, printed
    (torch.randn(4, 3), 7),  # past the decay: the progress is clamped at 1
]
