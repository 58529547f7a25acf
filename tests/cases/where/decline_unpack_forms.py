"""[Where] declined: unpacking whose predicated form would not be the original's. A swap
(`a, b = b, a`) reads the names it binds, so assigning in turn is not assigning at once; a
call whose arity its arguments decide (`x.chunk(n)`) could give another count than the
targets, which raises only where the original unpacks."""
import torch


def swap(x: torch.Tensor, y: torch.Tensor):
    a = x * 1.0
    b = y * 1.0
    if a.sum() > b.sum():
        a, b = b, a
    return a - b


def halves(x: torch.Tensor, n: int):
    h = x * 1.0
    lo = h
    hi = h
    if h.sum() > 0:
        lo, hi = h.chunk(n)
    return lo + hi


def ENTRY(x, y, n: int):
    return swap(x, y), halves(x, n)


torch.manual_seed(0)
INPUTS = [
    (torch.ones(4), torch.zeros(4), 2),
    (-torch.ones(4), torch.zeros(4), 2),
]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (4, 4)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "read the names it binds"), ("GM101", "fixed number of tensors")]

torch.compile(ENTRY)  # traced: an entry point of the mender
