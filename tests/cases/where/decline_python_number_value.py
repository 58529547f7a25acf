"""[Where] declined: a conditional expression whose value is a Python number, from
huggingface/diffusers: src/diffusers/schedulers/scheduling_euler_discrete.py:
EulerDiscreteScheduler.step (`gamma = ... if s_tmin <= sigma <= s_tmax else 0.0`), here inside
a static `if`. torch.where cannot hold the float (a float32 tensor in its place computes
`gamma + 1` in float32 where Python computes it in float64), and tail duplication takes only
a branch whose block ends in the function's return: here the static `if`'s block ends in an
assignment, and the code after the `if` would have to be duplicated too."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, sample: torch.Tensor, sigma: torch.Tensor, s_churn: float = 0.5):
        sample = sample * 1.0
        if sample.dim() > 1:
            gamma = min(s_churn / 5, 2**0.5 - 1) if sigma <= 5.0 else 0.0
            sample = sample * (gamma + 1)
        return sample * sigma


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor(3.1)),
    (torch.randn(2, 3), torch.tensor(7.0)),
    (torch.randn(3), torch.tensor(3.1), 1.7),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "the branch's block does not end in `return <value>` after it")]
