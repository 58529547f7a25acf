"""latent-diffusion's LambdaLinearScheduler (a LambdaWarmUpCosineScheduler2 whose decay is
linear), the learning-rate multiplier of the latent-diffusion configs, which
`DDPM.configure_optimizers` builds from `scheduler_config` and hands to `LambdaLR(opt,
lr_lambda=scheduler.schedule)` with `'interval': 'step'`. `schedule(n)` finds the cycle of
step n (`find_in_interval` over the numpy `cum_cycles`), makes n relative to the cycle's
start (`n - self.cum_cycles[cycle]`, a numpy int64), prints the step, the last multiplier
and the cycle every `verbosity_interval` steps of the cycle, then rises linearly over the
cycle's warm-up and falls linearly from `f_max` towards `f_min` over the cycle. The step
here takes the learning rate as `LambdaLR.get_lr` does (`base_lr * lr_lambda(last_epoch)`)
and makes a plain SGD update of a linear layer's weight with it (AdamW in the original).
Plain torch.compile does not break, by the corpus' measure: Dynamo's first break, at
`find_in_interval`'s loop test on the numpy step (`if n <= cl:`), comes before any operation
of the step, so the step's one graph begins after the call, and Dynamo then skips the
`schedule` frame (no tensor-related objects in it: unlike the cosine schedule's, its code
names no `np`), which runs eagerly, `print` and numpy tests included."""

import numpy as np
import torch
from torch import nn

ORIGIN = "CompVis/latent-diffusion: ldm/lr_scheduler.py: LambdaLinearScheduler.schedule"
CATEGORY = "no_break"


class LambdaWarmUpCosineScheduler2:
    """
    supports repeated iterations, configurable via lists
    note: use with a base_lr of 1.0.
    """
    def __init__(self, warm_up_steps, f_min, f_max, f_start, cycle_lengths, verbosity_interval=0):
        assert len(warm_up_steps) == len(f_min) == len(f_max) == len(f_start) == len(cycle_lengths)
        self.lr_warm_up_steps = warm_up_steps
        self.f_start = f_start
        self.f_min = f_min
        self.f_max = f_max
        self.cycle_lengths = cycle_lengths
        self.cum_cycles = np.cumsum([0] + list(self.cycle_lengths))
        self.last_f = 0.
        self.verbosity_interval = verbosity_interval

    def find_in_interval(self, n):
        interval = 0
        for cl in self.cum_cycles[1:]:
            if n <= cl:
                return interval
            interval += 1

    # its own (cosine) schedule is overridden below

    def __call__(self, n, **kwargs):
        return self.schedule(n, **kwargs)


class LambdaLinearScheduler(LambdaWarmUpCosineScheduler2):

    def schedule(self, n, **kwargs):
        cycle = self.find_in_interval(n)
        n = n - self.cum_cycles[cycle]
        if self.verbosity_interval > 0:
            if n % self.verbosity_interval == 0: print(f"current step: {n}, recent lr-multiplier: {self.last_f}, "
                                                       f"current cycle {cycle}")

        if n < self.lr_warm_up_steps[cycle]:
            f = (self.f_max[cycle] - self.f_start[cycle]) / self.lr_warm_up_steps[cycle] * n + self.f_start[cycle]
            self.last_f = f
            return f
        else:
            f = self.f_min[cycle] + (self.f_max[cycle] - self.f_min[cycle]) * (self.cycle_lengths[cycle] - n) / (self.cycle_lengths[cycle])
            self.last_f = f
            return f


class SGDStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(2, 3))
        self.learning_rate = 0.5
        # the configs' shape (warm_up_steps [10000], f_start [1e-6], f_max [1.], f_min [1.]),
        # shrunk to two short cycles
        scheduler = LambdaLinearScheduler(warm_up_steps=[2, 1], f_min=[0.5, 0.1],
                                          f_max=[1.0, 0.8], f_start=[1e-6, 0.01],
                                          cycle_lengths=[5, 4], verbosity_interval=3)
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
    (torch.randn(4, 3), 0),  # the first cycle's warm-up, printed
    (torch.randn(4, 3), 1),  # its warm-up, silent
    (torch.randn(4, 3), 3),  # its linear decay, printed
    (torch.randn(4, 3), 5),  # its end, silent
    (torch.randn(4, 3), 8),  # the second cycle (its step 3, past its warm-up), printed
    (torch.randn(4, 3), 9),  # its end, silent
]
