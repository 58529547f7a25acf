"""[Trap] tensor asserts: with and without a message, a message over two lines, a comment
after the assert, one after a semicolon, a message that is not a literal (the rerun form,
trap/assert_message_rerun.py); left alone: an assert on Python values."""
import torch


@torch.compile
def forward(x: torch.Tensor, limit: int):
    h = x * 2
    assert (h > -100).all(), "input out of range"
    assert h.sum() != 0  # a sum of zero is rejected
    assert torch.isfinite(h).all(), ("non-finite values "
                                     "in the input")
    h = h + 1; assert (h != 7).all()
    assert (h < 1000).all(), f"larger than {limit}"
    assert limit > 0, "limit must be positive"
    return h


ENTRY = forward.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [
    (torch.tensor([1.0, 2.0]), 5),
    (torch.tensor([-100.0, 2.0]), 5),
    (torch.tensor([1.0, -1.0]), 5),
    (torch.tensor([float("inf"), 1.0]), 5),
    (torch.tensor([3.0, 1.0]), 5),
    (torch.tensor([600.0, 1.0]), 5),
    (torch.tensor([1.0, 2.0]), 0),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [
    ("GM110", "trap"),
    ("GM110", "trap"),
    ("GM110", "trap"),
    ("GM110", "trap"),
    ("GM110", "trap"),
]
