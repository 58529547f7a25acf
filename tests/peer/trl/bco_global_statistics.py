"""TRL's BCO helper for the running moments of the implicit rewards: the sum and count of
the rewards (the mask's sum when a mask is given) are stacked with `torch.tensor([...])`,
reduced across ranks, and the variance follows; the count is returned as a Python number
with `count.item()`. Python values from tensor data: not fixable by design. The accelerator
is a one-process stand-in (accelerate's reduce returns the tensor as it is when there is a
single process)."""

import torch

ORIGIN = "huggingface/trl: trl/experimental/bco/bco_trainer.py: get_global_statistics"
CATEGORY = "out_of_scope"


class SingleProcessAccelerator:
    device = torch.device("cpu")
    use_distributed = False

    def reduce(self, tensor, reduction="sum"):
        return tensor


@torch.no_grad()
def get_global_statistics(accelerator, xs, mask=None, device="cpu"):
    """
    Computes element-wise mean and variance of the tensor across processes.
    """
    xs = xs.to(accelerator.device)
    sum_and_count = torch.tensor([xs.sum(), (xs.numel() if mask is None else mask.sum())], device=xs.device)
    sum_and_count = accelerator.reduce(sum_and_count)
    global_sum, count = sum_and_count
    global_mean = global_sum / count

    sum_var = torch.sum(((xs - global_mean) ** 2).mul(1 if mask is None else mask))
    sum_var = accelerator.reduce(sum_var)
    global_var = sum_var / count

    return global_mean.to(device), global_var.to(device), count.item()


def global_statistics(xs, mask=None):
    return get_global_statistics(SingleProcessAccelerator(), xs, mask)


ENTRY = global_statistics
torch.manual_seed(0)
INPUTS = [
    (torch.randn(6),),
    (torch.randn(6), torch.tensor([1.0, 1.0, 0.0, 1.0, 0.0, 1.0])),
]
