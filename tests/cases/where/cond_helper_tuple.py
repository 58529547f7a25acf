"""[Where]: a branch unpacks what a helper of the module returns (`h, total =
self._fix(h)`, a repair step giving the repaired activations and their sum). Every return of
the helper is a tuple display of two values, so the unpacking gives two; the helper calls a
submodule, so the branch is torch.cond's, its branch functions holding the unpacking as
written, behind runtime.cond_on (Dynamo's trace checks the helper and the layer)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def _fix(self, x):
        x = x.clamp(min=0)
        return self.lin(x), x.sum()

    def forward(self, x):
        h = self.lin(x)
        if (h < -1).any():
            h, total = self._fix(h)
        else:
            total = h.sum()
        return h, total


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3) * 5.0,),  # some activation below -1: repaired
    (torch.zeros(2, 3),),  # none
]
GRAD = True
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]
EXPECTED_DECLINES = []
