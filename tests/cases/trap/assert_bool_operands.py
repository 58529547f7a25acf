"""[Trap] an assert over `and`/`or` of tensor conditions (I-BERT's quantized linear:
`assert A.sum() == 0 and B.sum() == 0`): Python's `and` calls bool() on each operand, so the
condition is written torch.logical_and/logical_or and asserted in the graph. Inputs fail each
operand in turn, an `or` whose first operand is false, and a `not` (bool() too)."""
import torch


def ENTRY(a, b, scale):
    h = a - a.round()
    assert h.abs().sum() == 0 and (b - b.round()).abs().sum() == 0, "not integers"
    assert scale.min() > 0 or scale.max() < 0, "scale crosses zero"
    assert not torch.isnan(scale).any(), "nan scale"
    return a * b * scale


INPUTS = [
    (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), torch.tensor([0.5, 2.0])),
    (torch.tensor([1.5, 2.0]), torch.tensor([3.0, 4.0]), torch.tensor([0.5, 2.0])),
    (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.5]), torch.tensor([0.5, 2.0])),
    (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), torch.tensor([-0.5, -2.0])),
    (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), torch.tensor([-0.5, 2.0])),
    (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), torch.tensor([float("nan"), 2.0])),
]
EXPECTED_BREAKS = (3, 0)
EXPECTED_GRAPHS = (4, 1)
EXPECTED_TAGS = [("GM110", "trap")] * 3
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
