"""[Trap] validation guards: builtin and module exception classes, no message, and/or/not
conditions, a one-line guard, a comment after the raise, a static prefix."""
import torch


class ShapeError(ValueError):
    pass


@torch.compile
def forward(x: torch.Tensor, y: torch.Tensor):
    if x.sum() < 0:
        raise ValueError("negative")
    if not torch.isfinite(x).all():
        raise FloatingPointError('non-finite input')  # keep this comment
    if (x > 10).any() or y.isnan().any():
        raise ShapeError
    if x.max() > 100: raise RuntimeError("too large")
    if y is not None and (y < 0).any():  # the static part stays a Python if
        raise ValueError("negative y")
    return x + y


ENTRY = forward.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [
    (torch.ones(2), torch.ones(2)),
    (-torch.ones(2), torch.ones(2)),
    (torch.tensor([float("inf"), 1.0]), torch.ones(2)),
    (torch.tensor([11.0, 1.0]), torch.ones(2)),
    (torch.ones(2), torch.tensor([float("nan"), 1.0])),
    (torch.ones(2), torch.tensor([-1.0, 1.0])),
]
EXPECTED_BREAKS = (6, 0)
EXPECTED_GRAPHS = (7, 1)
EXPECTED_TAGS = [
    ("GM105", "trap"),
    ("GM105", "trap"),
    ("GM105", "trap"),
    ("GM105", "trap"),
    ("GM105", "trap"),
]
