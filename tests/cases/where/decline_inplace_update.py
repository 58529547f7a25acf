"""declined: in-place updates under a tensor condition of a tensor the caller passed in (the
update would run whatever the condition: a version-counter bump and a write back the
original makes only on its path), of an attribute, with an impure argument. An update that
is not element-wise (scatter_: an index out of range would raise off the path) is not
torch.where's; on a tensor the function made and holds alone it is torch.cond's, with grad
mode off only (here, with grad mode on, the original statement runs)."""
import torch


@torch.compile
def argument(x: torch.Tensor):
    if x.sum() > 0:
        x.mul_(2)
    return x


@torch.compile
def impure(x: torch.Tensor):
    out = x * 2
    if x.sum() > 0:
        out.add_(torch.rand(3))
    return out


@torch.compile
def scatter(x: torch.Tensor, idx: torch.Tensor):
    out = torch.zeros(4, 3)
    if x.sum() > 0:
        out.scatter_(0, idx, x)
    return out


EXPECTED_TAGS = [("GM101", "cond")] + [("GM101", "declined")] * 2
EXPECTED_DECLINES = [
    ("GM101", "may not be one the traced code created"),
    ("GM101", "is not pure"),
]
