"""latent-diffusion's LambdaWarmUpCosineScheduler, the learning-rate multiplier that
`VQModel.configure_optimizers` (and `DDPM.configure_optimizers`) builds from its
`scheduler_config` and hands to `LambdaLR(opt, lr_lambda=scheduler.schedule)` with
`'interval': 'step'`, so it runs at every training step. `schedule(n)` prints the step and
the last multiplier every `verbosity_interval` steps (`print(f"current step: {n}, recent
lr-multiplier: {self.last_lr}")`), rises linearly from `lr_start` to `lr_max` over the
warm-up, then follows a cosine down to `lr_min` (the progress clamped at 1), and keeps the
multiplier in `self.last_lr`. The step here takes the learning rate as `LambdaLR.get_lr`
does for its step (`base_lr * lr_lambda(last_epoch)`) and makes a plain SGD update of a
linear layer's weight with it (AdamW in the original). The step is a Python int and the
printed values are constants, so plain torch.compile traces the `print` without a break."""

import numpy as np
import torch
from torch import nn

ORIGIN = "CompVis/latent-diffusion: ldm/lr_scheduler.py: LambdaWarmUpCosineScheduler.schedule"
CATEGORY = "no_break"


class LambdaWarmUpCosineScheduler:
    """
    note: use with a base_lr of 1.0
    """
    def __init__(self, warm_up_steps, lr_min, lr_max, lr_start, max_decay_steps, verbosity_interval=0):
        self.lr_warm_up_steps = warm_up_steps
        self.lr_start = lr_start
        self.lr_min = lr_min
        self.lr_max = lr_max
        self.lr_max_decay_steps = max_decay_steps
        self.last_lr = 0.
        self.verbosity_interval = verbosity_interval

    def schedule(self, n, **kwargs):
        if self.verbosity_interval > 0:
            if n % self.verbosity_interval == 0: print(f"current step: {n}, recent lr-multiplier: {self.last_lr}")
        if n < self.lr_warm_up_steps:
            lr = (self.lr_max - self.lr_start) / self.lr_warm_up_steps * n + self.lr_start
            self.last_lr = lr
            return lr
        else:
            t = (n - self.lr_warm_up_steps) / (self.lr_max_decay_steps - self.lr_warm_up_steps)
            t = min(t, 1.0)
            lr = self.lr_min + 0.5 * (self.lr_max - self.lr_min) * (
                    1 + np.cos(t * np.pi))
            self.last_lr = lr
            return lr

    def __call__(self, n, **kwargs):
        return self.schedule(n, **kwargs)


class SGDStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2, 3))
        self.learning_rate = 0.5
        scheduler = LambdaWarmUpCosineScheduler(warm_up_steps=3, lr_min=0.1, lr_max=1.0,
                                                lr_start=0.01, max_decay_steps=6,
                                                verbosity_interval=3)
        self.lr_lambda = scheduler.schedule

    def forward(self, x, global_step):
        # LambdaLR.get_lr at this step: base_lr * lr_lambda(last_epoch)
        lr = self.learning_rate * self.lr_lambda(global_step)
        out = x @ self.weight.t()
        grad = 2.0 * out.t() @ x / out.numel()  # d mean(out ** 2) / d weight
        return self.weight - grad * lr


ENTRY = SGDStep
torch.manual_seed(0)
INPUTS = [
    (torch.randn(4, 3), 0),  # warm-up, printed
    (torch.randn(4, 3), 2),  # warm-up, silent
    (torch.randn(4, 3), 3),  # the cosine, printed
    (torch.randn(4, 3), 4),  # the cosine, silent
    (torch.randn(4, 3), 9),  # past the decay (progress clamped at 1), printed
]
