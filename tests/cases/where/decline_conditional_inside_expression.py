"""declined: a conditional expression inside an expression whose value is not pure (both
sides would be computed while compiling: a random draw the original makes on one side
only), whose value reads `.item()`, and one in a print's arguments
([Defer] records them as they are)."""
import torch


@torch.compile
def impure(x: torch.Tensor):
    return torch.cat([x, torch.rand(3) if x.sum() > 0 else x])


@torch.compile
def item(x: torch.Tensor):
    return torch.cat([x, x * x.max().item() if x.sum() > 0 else x])


@torch.compile
def formatted(x: torch.Tensor):
    y = x * 2
    print("big" if y.sum() > 0 else "small")
    return y


EXPECTED_TAGS = sorted([("GM101", "declined")] * 3 + [("GM102", "defer"), ("GM106", "scalar_capture")])
EXPECTED_DECLINES = [
    ("GM101", "is not pure"),
    ("GM101", "uses .item()"),
    ("GM101", "an argument of a print"),
]
