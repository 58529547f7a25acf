"""[MaskedReduce] declines: a selection kept as a value, one used otherwise, one reduced with
arguments, a mean, and a mask within a tuple of indices."""
import torch


@torch.compile
def kept(x: torch.Tensor, sel: torch.Tensor):
    m = sel != 0
    y = x * 2
    s = y[m]
    return s.sum() + 1


@torch.compile
def other_use(x: torch.Tensor, sel: torch.Tensor):
    m = sel != 0
    y = x * 2
    return y[m].argmax()


@torch.compile
def with_arguments(x: torch.Tensor, sel: torch.Tensor):
    m = sel != 0
    y = x * 2
    return y[m].sum(dtype=torch.float64)


@torch.compile
def mean(x: torch.Tensor, sel: torch.Tensor):
    m = sel != 0
    y = x * 2.0
    return y[m].mean()


@torch.compile
def tuple_index(x: torch.Tensor, sel: torch.Tensor):
    m = sel != 0
    y = x * 2
    return y[:, m].sum()


EXPECTED_TAGS = [("GM107", "declined")] * 5
EXPECTED_DECLINES = [
    ("GM107", "kept as a value"),
    ("GM107", "used with .argmax"),
    ("GM107", "reduced with arguments"),
    ("GM107", "mean of a boolean-mask selection"),
    ("GM107", "one index of several"),
]
