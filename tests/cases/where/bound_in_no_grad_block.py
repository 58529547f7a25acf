"""[Where]: a branch on a value bound inside `with torch.no_grad():` (a distillation loss:
the teacher's output is computed without gradients, then rescaled when it is large). A with
statement whose context managers never swallow an exception (torch_facts' PlainContext: the
grad-mode, autocast and profiling managers, `contextlib.nullcontext`) leaves its body only
by finishing it or by raising, so the name is bound on every path that reaches the if."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.teacher = nn.Linear(4, 4)
        self.student = nn.Linear(4, 4)

    def forward(self, x):
        with torch.no_grad():
            target = self.teacher(x)
        pred = self.student(x)
        if target.abs().max() > 1.0:
            target = target / target.abs().max()
        return (pred - target).pow(2).mean()


torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 4) * 10.0,),  # large targets: rescaled
    (torch.randn(3, 4) * 0.01,),  # small targets: kept
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
