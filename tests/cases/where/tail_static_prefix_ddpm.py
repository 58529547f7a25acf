"""[Where] tail duplication under a static condition prefix with no else branch, from
huggingface/diffusers: src/diffusers/schedulers/scheduling_ddpm.py: DDPMScheduler.step
(`variance = 0; if t > 0: variance = ... * variance_noise`, then `pred_prev_sample =
pred_prev_sample + variance`), with the noise passed in and optional, as callers that
bring their own noise do. `variance_noise is not None` stays a Python `if` around the
rewrite; where it is false, the rest of the function runs as written with the int 0."""
from typing import Optional

import torch


def ENTRY(pred_prev_sample: torch.Tensor, t: torch.Tensor, variance_noise: Optional[torch.Tensor],
          beta: torch.Tensor):
    variance = 0
    if variance_noise is not None and t > 0:
        variance = (beta ** 0.5) * variance_noise
    pred_prev_sample = pred_prev_sample + variance
    return pred_prev_sample


torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 2, 3), torch.tensor(4), torch.randn(1, 2, 3), torch.tensor(0.02)),
    (torch.randn(1, 2, 3), torch.tensor(0), torch.randn(1, 2, 3), torch.tensor(0.02)),
    (torch.randn(1, 2, 3), torch.tensor(4), None, torch.tensor(0.02)),
    (torch.randn(1, 2, 3), torch.tensor(2), torch.randn(1, 2, 3, dtype=torch.float64),
     torch.tensor(0.5)),
    (torch.randn(1, 2, 3), torch.tensor(0), torch.randn(4, 2, 3), torch.tensor(0.5)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
