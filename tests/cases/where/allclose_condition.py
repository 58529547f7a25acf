"""[Where]: a branch on `torch.allclose` (a kernel matrix symmetrized, with a warning, when it
is not symmetric; a residual skipped when the update is close to zero). torch.allclose reads
`isclose(...).all()` with `.item()`, a graph break; the condition is that bool tensor,
`torch.isclose(a, b, ...).all()` with the same arguments (`a.allclose(b)` likewise), which
is what torch's allclose computes, so the branch is predicated and the warning deferred."""
import warnings

import torch


def ENTRY(k: torch.Tensor, update: torch.Tensor):
    if not torch.allclose(k, k.transpose(-1, -2), atol=1e-5):
        warnings.warn("kernel matrix is not symmetric; symmetrizing")
        k = (k + k.transpose(-1, -2)) / 2
    if update.allclose(torch.zeros_like(update)):
        out = k
    else:
        out = k + update
    return out


torch.manual_seed(0)
_A = torch.randn(3, 3)
INPUTS = [
    (_A, torch.randn(3, 3)),
    (_A + _A.T, torch.zeros(3, 3)),
    (_A + _A.T, torch.full((3, 3), 1e-9)),
    (torch.tensor([[1.0, float("nan")], [float("nan"), 1.0]]), torch.zeros(2, 2)),
]
GRAD = True
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where"), ("GM104", "where")]
EXPECTED_DECLINES = []
