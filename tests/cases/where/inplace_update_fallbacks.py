"""[Where]'s in-place updates where update_where_ok refuses and the original `if` runs:
an argument of another dtype than the target (float64 into float32), one that would grow
the target by broadcasting (the original raises only where the branch runs: here it does not),
and grad mode on (GRAD: gradients compared)."""
import torch


def ENTRY(x: torch.Tensor, y: torch.Tensor, k):
    out = x * 1
    if x.sum() > 0:
        out.add_(y)
        out.mul_(k)
    return out


GRAD = True
INPUTS = [
    (torch.rand(3, 4), torch.rand(3, 4, dtype=torch.float64), 2),
    (-torch.rand(3, 4), torch.rand(3, 4, dtype=torch.float64), 2),
    (-torch.rand(3, 4), torch.rand(2, 3, 4), 2),
    (torch.rand(3, 4), torch.rand(4), 3),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
