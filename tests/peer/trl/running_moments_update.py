"""TRL's BCO running moments of the implicit rewards (the `delta` the BCO loss subtracts):
each batch's mean and variance (across ranks when distributed) are merged into the running
mean, standard deviation and variance, which are kept as Python floats read with `.item()`,
and the batch's mean and standard deviation are returned as Python floats too. Python state
from tensor data: not fixable by design. The accelerator is a one-process stand-in
(accelerate's reduce returns the tensor as it is when there is a single process)."""

from dataclasses import dataclass

import torch

ORIGIN = "huggingface/trl: trl/experimental/bco/bco_trainer.py: RunningMoments.update"
CATEGORY = "out_of_scope"


class SingleProcessAccelerator:
    device = torch.device("cpu")

    def __init__(self, use_distributed):
        self.use_distributed = use_distributed

    def reduce(self, tensor, reduction="sum"):
        return tensor


@torch.no_grad()
def get_global_statistics(accelerator, xs, mask=None, device="cpu"):
    xs = xs.to(accelerator.device)
    sum_and_count = torch.tensor([xs.sum(), (xs.numel() if mask is None else mask.sum())], device=xs.device)
    sum_and_count = accelerator.reduce(sum_and_count)
    global_sum, count = sum_and_count
    global_mean = global_sum / count

    sum_var = torch.sum(((xs - global_mean) ** 2).mul(1 if mask is None else mask))
    sum_var = accelerator.reduce(sum_var)
    global_var = sum_var / count

    return global_mean.to(device), global_var.to(device), count.item()


@dataclass
class RunningMoments:
    """
    Calculates the running mean and standard deviation of a data stream.
    """

    accelerator: SingleProcessAccelerator
    mean: float = 0
    std: float = 1
    var: float = 1
    count: float = 1e-24

    @torch.no_grad()
    def update(self, xs):
        """
        Updates running moments from batch's moments computed across ranks
        """
        if self.accelerator.use_distributed:
            xs_mean, xs_var, xs_count = get_global_statistics(self.accelerator, xs)
        else:
            xs_count = xs.numel()
            xs_var, xs_mean = torch.var_mean(xs, unbiased=False)
        xs_mean, xs_var = xs_mean.float(), xs_var.float()

        delta = xs_mean - self.mean
        tot_count = self.count + xs_count

        new_sum = xs_var * xs_count
        # correct old_sum deviation accounting for the new mean
        old_sum = self.var * self.count + delta**2 * self.count * xs_count / tot_count
        tot_sum = old_sum + new_sum

        self.mean += (delta * xs_count / tot_count).item()
        new_var = tot_sum / tot_count
        self.std = (new_var * tot_count / (tot_count - 1)).float().sqrt().item()
        self.var = new_var.item()
        self.count = tot_count

        return xs_mean.item(), (xs_var * xs_count / (xs_count - 1)).float().sqrt().item()


RUNNING = {}


def reset():
    RUNNING.clear()


def update(rewards, use_distributed):
    running = RUNNING.setdefault(use_distributed, RunningMoments(SingleProcessAccelerator(use_distributed)))
    batch_mean, batch_std = running.update(rewards)
    return batch_mean, batch_std, running.mean, running.std, running.var, running.count


ENTRY = update
torch.manual_seed(0)
INPUTS = [
    (torch.randn(6), False),
    (torch.randn(6), True),
]
