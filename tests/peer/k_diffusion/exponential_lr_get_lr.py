"""k-diffusion's ExponentialLR scheduler: `get_lr` warns when it is called outside the
scheduler's `step` (`if not self._get_lr_called_within_step: warnings.warn(...)`), then
returns the closed-form rate that decays by `decay` every `num_steps` steps, with
exponential warmup and a floor. A training step reads the rate the scheduler set (through
`step`) or asks `get_lr` directly, and scales its loss by it. torch 2.13's LRScheduler
takes no `verbose`, so it is not passed on."""

import warnings

import torch
from torch import nn, optim

ORIGIN = "crowsonkb/k-diffusion: k_diffusion/utils.py: ExponentialLR.get_lr"
CATEGORY = "defer"


class ExponentialLR(optim.lr_scheduler._LRScheduler):
    def __init__(self, optimizer, num_steps, decay=0.5, warmup=0., min_lr=0.,
                 last_epoch=-1):
        self.num_steps = num_steps
        self.decay = decay
        if not 0. <= warmup < 1:
            raise ValueError('Invalid value for warmup')
        self.warmup = warmup
        self.min_lr = min_lr
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, "
                          "please use `get_last_lr()`.")

        return self._get_closed_form_lr()

    def _get_closed_form_lr(self):
        warmup = 1 - self.warmup ** (self.last_epoch + 1)
        lr_mult = (self.decay ** (1 / self.num_steps)) ** self.last_epoch
        return [warmup * max(self.min_lr, base_lr * lr_mult)
                for base_lr in self.base_lrs]


class TrainStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(3, 2)
        self.opt = optim.SGD(self.net.parameters(), lr=0.1)
        self.sched = ExponentialLR(self.opt, num_steps=2, decay=0.5, warmup=0.9, min_lr=0.001)

    def forward(self, x, within_step):
        loss = self.net(x).pow(2).mean()
        if within_step:
            self.opt.step()
            self.sched.step()
            lr = self.sched.get_last_lr()[0]
        else:
            lr = self.sched.get_lr()[0]
        return loss * lr


ENTRY = TrainStep
torch.manual_seed(0)
INPUTS = [
    (torch.randn(4, 3), False),
    (torch.randn(4, 3), True),
    (torch.randn(4, 3), True),
    (torch.randn(4, 3), False),
]
