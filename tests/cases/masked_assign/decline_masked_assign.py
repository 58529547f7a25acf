"""[MaskedReduce]'s masked_assign form declined: a value that is not element-wise (a matrix
product, a cumulative sum, a method with a tensor argument), a selection by another mask,
and a store sharing its line; a guarded store of a slice's selections."""
import torch


@torch.compile
def matmul(x: torch.Tensor, w: torch.Tensor, sel: torch.Tensor):
    out = x * 1.0
    m = sel != 0
    out[m] = w[m] @ x[m].T
    return out


@torch.compile
def cumulative(x: torch.Tensor, sel: torch.Tensor):
    out = x * 1.0
    m = sel != 0
    out[m] = x[m].cumsum(0)
    return out


@torch.compile
def tensor_argument(x: torch.Tensor, low: torch.Tensor, sel: torch.Tensor):
    out = x * 1.0
    m = sel != 0
    out[m] = x[m].clamp(min=low)
    return out


@torch.compile
def other_mask(x: torch.Tensor, sel: torch.Tensor):
    out = x * 1.0
    m = sel != 0
    k = sel > 1
    out[m] = x[k] * 2
    return out


@torch.compile
def shared_line(x: torch.Tensor, sel: torch.Tensor):
    out = x * 1.0
    m = sel != 0
    n = 2; out[m] = x[m] * 2  # noqa: E702
    return out


@torch.compile
def sliced(x: torch.Tensor, sel: torch.Tensor):
    out = x * 1.0
    m = sel != 0
    if m.any():
        out[1:][m] = x[1:][m] * 2
    return out


EXPECTED_TAGS = [("GM101", "declined")] + [("GM107", "declined")] * 7
EXPECTED_DECLINES = [
    ("GM107", "`w[m] @ x[m].T` is not an element-wise use"),
    ("GM107", "`w[m] @ x[m].T` is not an element-wise use"),
    ("GM107", "`x[m].cumsum(0)` is not an element-wise use"),
    ("GM107", "`x[m].clamp(min=low)` is not an element-wise use"),
    ("GM107", "`x[k]` is not an element-wise use"),
    ("GM107", "shares its line"),
    ("GM101", "neither a Python number nor computed element by element"),
    ("GM107", "kept as a value"),
]
