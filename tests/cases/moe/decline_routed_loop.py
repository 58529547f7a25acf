"""[Moe] declines: a routed loop whose rows are not computed row by row (a mean over the
routed tokens), one that reads the count of routed tokens, one whose body writes state the
extra iterations would write again, one whose rows are read after the loop, one over an
iterable that is neither a range, enumerate(<experts>) nor the experts hit, and one that lists
the experts hit before the masks it reads are known (the cost rule reads their size)."""

import torch
from torch import nn


class Mixing(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor, w: torch.Tensor):
        out = torch.zeros_like(x)
        for e in range(4):
            k, t = torch.where(mask[e])
            rows = x[t] - x[t].mean(0)
            out.index_add_(0, t, rows * w[t, k, None])
        return out


class Counted(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor, w: torch.Tensor):
        out = torch.zeros_like(x)
        for e in range(4):
            k, t = torch.where(mask[e])
            share = 1.0 / t.shape[0]
            out.index_add_(0, t, x[t] * share)
        return out


class Stateful(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x: torch.Tensor, mask: torch.Tensor, w: torch.Tensor):
        out = torch.zeros_like(x)
        for e in range(4):
            self.calls += 1
            k, t = torch.where(mask[e])
            out.index_add_(0, t, x[t] * w[t, k, None])
        return out


class ReadAfter(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor, w: torch.Tensor):
        out = torch.zeros_like(x)
        for e in range(4):
            k, t = torch.where(mask[e])
            rows = x[t] * w[t, k, None]
            out.index_add_(0, t, rows)
        return out, rows


class OtherIterable(nn.Module):
    def __init__(self):
        super().__init__()
        self.active = [0, 2]

    def forward(self, x: torch.Tensor, mask: torch.Tensor, w: torch.Tensor):
        out = torch.zeros_like(x)
        for e in self.active:
            k, t = torch.where(mask[e])
            out.index_add_(0, t, x[t] * w[t, k, None])
        return out


class HitBeforeMasks(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor, w: torch.Tensor):
        out = torch.zeros_like(x)
        hit = (mask.sum(dim=(-1, -2)) > 0).nonzero(as_tuple=True)[0].tolist()
        masks = mask.flip(0)
        for e in hit:
            k, t = torch.where(masks[e])
            out.index_add_(0, t, x[t] * w[t, k, None])
        return out


EXPECTED_TAGS = [("GM106", "declined")] + [("GM107", "declined")] * 7
EXPECTED_DECLINES = [
    ("GM107", "other than row by row"),
    ("GM107", "other than row by row"),
    ("GM107", "not a statement of the routed form"),
    ("GM107", "is read after it"),
    ("GM107", "not a range, enumerate"),
    ("GM106", "read otherwise than"),
    ("GM107", "masks the loop reads"),
    ("GM107", "masks the loop reads"),
]
