"""[Where] tail duplication of a branch whose value reads by a computed index, from
huggingface/diffusers: src/diffusers/schedulers/scheduling_ddpm.py: DDPMScheduler.step
(`variance = 0`, then `if t > 0: variance = (self._get_variance(t) ** 0.5) * variance_noise`,
then `pred_prev_sample = pred_prev_sample + variance`), with the variance read from the
schedule by `t` inline. The Python number on one side makes the rest of the function a
nested function each side calls; the read `alphas[t]` is computed ahead of its branch as a
masked read (`runtime.index_where`), which reads the condition: the condition is computed
before the branch values, and the read is checked in range where the branch is taken."""
import torch


def ENTRY(sample: torch.Tensor, t: torch.Tensor, noise: torch.Tensor, alphas: torch.Tensor):
    variance = 0
    if t > 0:
        variance = (alphas[t] ** 0.5) * noise
    return sample + variance


torch.manual_seed(0)
INPUTS = [
    (torch.randn(3), torch.tensor(4), torch.randn(3), torch.rand(10)),
    (torch.randn(3), torch.tensor(0), torch.randn(3), torch.rand(10)),
    # out of the schedule's range only where the branch is not taken
    (torch.randn(3), torch.tensor(-20), torch.randn(3), torch.rand(10)),
    # out of range where it is taken: IndexError, as the original
    (torch.randn(3), torch.tensor(12), torch.randn(3), torch.rand(10)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
