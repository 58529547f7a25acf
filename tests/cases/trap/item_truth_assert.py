"""[Trap] asserts on the truth of a scalar read from a tensor (an RL trainer's
`assert (a == b).all().item(), msg`; `bool()`, `float()` and `int()` reads): the read is held
as a tensor while compiling (runtime.item_later), so the assert stays in the graph with it,
where rewriting the assert alone would keep the read's break and add another. A NaN sum is
true, as for Python, and a sum of 0.5 and -0.5 false."""
import torch


def ENTRY(a, b, scale, count):
    h = a * 2
    assert (h == b * 2).all().item(), "a and b differ"
    assert bool((h != 0).any())
    assert float(scale.sum()), "scale sums to zero"
    assert int(count.sum()), "empty"
    return h + b * scale.sum() + count


INPUTS = [
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]), torch.tensor([0.5]), torch.tensor(3)),
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 3.0]), torch.tensor([0.5]), torch.tensor(3)),
    (torch.tensor([0.0, 0.0]), torch.tensor([0.0, 0.0]), torch.tensor([0.5]), torch.tensor(3)),
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]), torch.tensor([0.0]), torch.tensor(3)),
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]), torch.tensor([float("nan")]), torch.tensor(3)),
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]), torch.tensor([0.5]), torch.tensor(0)),
    (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]), torch.tensor([0.5, -0.5]), torch.tensor(3)),
]
EXPECTED_BREAKS = (4, 0)
EXPECTED_GRAPHS = (5, 1)
EXPECTED_TAGS = [("GM106", "trap")] * 4 + [("GM110", "trap")] * 4
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
