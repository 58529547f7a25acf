"""[Where]: in a loop, a branch changes in place an accumulator the function made and holds
alone (a sampler summing the steps whose score passes a threshold, by row index). Each run
of the if is torch.cond's: its branch function changes a copy bound to the name. In a loop
the proof reaches to the loop's end (what follows the if comes before its next run): the
accumulator is read there only as an operand or as the in-place call's receiver
(`decline_in_place_in_loop.py` takes a view there and is declined)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x, idx, thresholds):
        with torch.no_grad():
            acc = torch.zeros(4, 3)
            for i in range(3):
                h = self.lin(x) * (i + 1)
                if h.mean() > thresholds[i]:
                    acc.index_add_(0, idx, h)
                total = acc.sum() + 1
            return acc, total


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor([0, 3]), torch.tensor([-10.0, 10.0, -10.0])),
    (torch.randn(2, 3), torch.tensor([1, 1]), torch.tensor([10.0, 10.0, 10.0])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM101", "cond")]
EXPECTED_DECLINES = []
