"""[Trap] declines: an else branch whose raise [Where] cannot guard either (its message
formats a tensor), an elif; left alone: a condition that is not data-dependent."""
import torch


@torch.compile
def forward(x: torch.Tensor, n: int):
    if x.mean() > 1:
        raise ValueError(f"large mean {x.mean()}")
    else:
        x = x * 2
    if n > 3:
        raise ValueError("n too large")
    elif x.sum() < -100:
        raise ValueError("very negative")
    return x


ENTRY = forward.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [
    (torch.tensor([0.5, 0.5]), 1),
    (torch.tensor([2.0, 2.0]), 1),
    (torch.tensor([0.5, 0.5]), 5),
    (torch.tensor([-60.0, -60.0]), 1),
]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [
    ("GM105", "declined"),
    ("GM105", "declined"),
]
EXPECTED_DECLINES = [
    ("GM105", "else branch"),
    ("GM105", "elif branch"),
]
