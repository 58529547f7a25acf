"""[Trap] declined: an assert's `and` over an operand that is not a tensor condition (a
Python flag with a default): `torch.logical_and` cannot take it, so the assert is left as
written and the reason says why."""
import torch


def ENTRY(x, strict=True):
    assert strict and (x > 0).all(), "must be positive when strict"
    return x * 2


INPUTS = [
    (torch.tensor([1.0, 2.0]),),
    (torch.tensor([-1.0, 2.0]), False),
]
# No failing input: a failing `assert <tensor>` that Dynamo traces raises RuntimeError under
# plain torch.compile too (docs/MENDER.md, "Exceptions"), which this case is not about.
EXPECTED_BREAKS = (0, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM110", "declined")]
EXPECTED_DECLINES = [("GM110", "not a pure tensor condition")]

torch.compile(ENTRY)  # traced: an entry point of the mender
