"""[Where]: a branch on tensor data holding a static if that prints (an RL trainer's
early-stopping report on the approximate KL divergence, printed when `self.verbose >= 1`).
The static test orders a flag against a number: computed on both sides, it is checked to be
an int or float first (`runtime.python_numbers`, on which the comparison cannot raise), and
the recorded call sits under it, with the branch's condition. Eagerly, or where the check
fails, the original if runs."""
import torch
import torch.nn.functional as F
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.clip_range = 0.2
        self.target_kl = 0.01
        self.verbose = 1
        self.vf_coef = 0.5

    def forward(self, log_prob, old_log_prob, advantages, values, returns):
        ratio = torch.exp(log_prob - old_log_prob)
        policy_loss_1 = advantages * ratio
        policy_loss_2 = advantages * torch.clamp(ratio, 1 - self.clip_range, 1 + self.clip_range)
        policy_loss = -torch.min(policy_loss_1, policy_loss_2).mean()
        value_loss = F.mse_loss(returns, values)
        with torch.no_grad():
            log_ratio = log_prob - old_log_prob
            approx_kl_div = torch.mean((torch.exp(log_ratio) - 1) - log_ratio)
        if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
            if self.verbose >= 1:
                print(f"Early stopping due to reaching max kl: {approx_kl_div:.2f}")
        return policy_loss + self.vf_coef * value_loss


torch.manual_seed(0)
INPUTS = [
    (torch.randn(8), torch.randn(8), torch.randn(8), torch.randn(8), torch.randn(8)),  # reported
    (torch.zeros(8), torch.full((8,), 1e-3), torch.randn(8), torch.randn(8), torch.randn(8)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM102", "where")]
EXPECTED_DECLINES = []
