"""[MaskedReduce] declines: a selection kept as a value, one used otherwise, one reduced with
arguments, a mean, and a mask within a tuple of indices."""
import torch


def kept(x, sel):
    m = sel != 0
    y = x * 2
    s = y[m]
    return s.sum() + 1


def other_use(x, sel):
    m = sel != 0
    y = x * 2
    return y[m].argmax()


def with_arguments(x, sel):
    m = sel != 0
    y = x * 2
    return y[m].sum(dtype=torch.float64)


def mean(x, sel):
    m = sel != 0
    y = x * 2.0
    return y[m].mean()


def tuple_index(x, sel):
    m = sel != 0
    y = x * 2
    return y[:, m].sum()


@torch.compile
def main(x, sel, r):
    return kept(x, sel), other_use(x, sel), with_arguments(x, sel), mean(x, sel), tuple_index(r, sel)
