"""[Where] tail duplication of a Python number kept by an else-less if, from
huggingface/diffusers: src/diffusers/schedulers/scheduling_ddpm.py: DDPMScheduler.step
(`variance = 0; if t > 0: variance = ... * variance_noise`, then `pred_prev_sample =
pred_prev_sample + variance`; the branch value here is pure, where diffusers calls
`self._get_variance(t)`). A tensor in place of the int 0 would change the result's dtype
and shape where the original adds a Python 0; each side instead adds its own value in the
rest of the function, and torch.where selects the results when they have one shape and
dtype. Where they do not (a float64 or a broadcasting noise), the original branch selects
the value already computed."""
import torch


def ENTRY(pred_prev_sample: torch.Tensor, t: torch.Tensor, variance_noise: torch.Tensor,
          beta: torch.Tensor):
    variance = 0
    if t > 0:
        variance = (beta ** 0.5) * variance_noise
    pred_prev_sample = pred_prev_sample + variance
    return pred_prev_sample


torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 2, 3), torch.tensor(4), torch.randn(1, 2, 3), torch.tensor(0.02)),
    (torch.randn(1, 2, 3), torch.tensor(0), torch.randn(1, 2, 3), torch.tensor(0.02)),
    (torch.randn(1, 2, 3), torch.tensor(-3), torch.randn(1, 2, 3), torch.tensor(-1.0)),
    (torch.randn(1, 2, 3), torch.tensor(2), torch.randn(1, 2, 3, dtype=torch.float64),
     torch.tensor(0.5)),
    (torch.randn(1, 2, 3), torch.tensor(0), torch.randn(4, 2, 3), torch.tensor(0.5)),
    (torch.randn(1, 2, 3), torch.tensor(3), torch.randn(4, 2, 3), torch.tensor(0.5)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
