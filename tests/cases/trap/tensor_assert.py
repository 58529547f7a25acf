"""[Trap] `assert <tensor condition>[, "msg"]`: not a break (Dynamo lowers it to an in-graph
assert), but a failing one raises RuntimeError when compiled, AssertionError eagerly.
Mended (GM110), the compiled failure raises AssertionError with the message, as eagerly.
A tensor assert without a message, and one on a Python value that stays as written."""
import torch


def ENTRY(x: torch.Tensor, limit: int):
    h = x * 2
    assert (h > -100).all(), "input out of range"
    assert h.sum() != 0
    assert limit > 0, "limit must be positive"
    return h + 1


INPUTS = [
    (torch.tensor([1.0, 2.0]), 3),
    (torch.tensor([-100.0, 2.0]), 3),
    (torch.tensor([1.0, -1.0]), 3),
    (torch.tensor([1.0, 2.0]), 0),
]
EXPECTED_BREAKS = (0, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM110", "trap"), ("GM110", "trap")]
