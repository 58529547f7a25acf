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
