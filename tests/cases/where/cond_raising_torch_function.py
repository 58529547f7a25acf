"""[Where]: an early return whose other side calls a torch function that may raise on data
(a token loss: `F.cross_entropy` raises on a target out of range), so torch.where, which
computes both sides, declines it. torch.cond runs the side taken only: each side becomes a
branch function (the rest of the function after the early return the false one), behind
runtime.cond_on, Dynamo's trace the check."""
import torch
import torch.nn.functional as F
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.ignore_index = -100

    def forward(self, logits, target):
        valid = target != self.ignore_index
        if not valid.any():
            return logits.sum() * 0.0
        loss = F.cross_entropy(logits, target, ignore_index=self.ignore_index, reduction="sum")
        return loss / valid.sum()


torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 4), torch.tensor([0, -100, 2])),  # some tokens count
    (torch.randn(3, 4), torch.tensor([-100, -100, -100])),  # none: zero, not 0 / 0
]
GRAD = True
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
EXPECTED_DECLINES = []
