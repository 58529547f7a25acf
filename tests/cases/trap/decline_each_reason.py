"""[Trap] declines: a formatted message, an else branch, more than a raise, an instance,
an elif, a condition that is not data-dependent, a chained cause."""
import torch

ERROR = ValueError("prebuilt")


@torch.compile
def forward(x: torch.Tensor, n: int):
    if x.sum() < 0:
        raise ValueError(f"negative sum {x.sum()}")
    if x.mean() > 1:
        raise ValueError("large mean")
    else:
        x = x * 2
    if x.min() < -5:
        x = x.clamp(min=-5)
        raise ValueError("clamped")
    if x.max() > 50:
        raise ERROR
    if n > 3:
        raise ValueError("n too large")
    if x.std() > 9:
        raise ValueError("spread") from None
    return x


ENTRY = forward.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [
    (torch.tensor([0.5, 0.5]), 1),
    (torch.tensor([-1.0, -2.0]), 1),
    (torch.tensor([2.0, 2.0]), 1),
    (torch.tensor([-10.0, 11.0]), 1),
    (torch.tensor([26.0] + [-2.5] * 10), 1),
    (torch.tensor([0.5, 0.5]), 5),
    (torch.tensor([24.0] + [-2.5] * 9), 1),
]
EXPECTED_BREAKS = (5, 5)
EXPECTED_GRAPHS = (5, 5)
EXPECTED_TAGS = [
    ("GM105", "declined"),
    ("GM105", "declined"),
    ("GM105", "declined"),
    ("GM105", "declined"),
    ("GM105", "declined"),
]
EXPECTED_DECLINES = [
    ("GM105", "neither a string literal"),
    ("GM105", "else branch"),
    ("GM105", "not exactly one raise"),
    ("GM105", "not bound to a class"),
    ("GM105", "chains a cause"),
]
