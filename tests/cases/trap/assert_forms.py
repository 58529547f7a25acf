"""[Trap] tensor asserts: with and without a message, a message over two lines, a comment
after the assert, one after a semicolon; declined: a message that is not a literal; left
alone: an assert on Python values."""
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
