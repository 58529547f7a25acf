"""[Scalar] keeps a scalar read accumulated in a loop: `total = total + loss.sum().item()`
assigns `total` again on every pass (and before the loop), so the read's value reaches the
next pass's sum and whatever the loop's result feeds, and `running += loss.item()` stores it
in place; neither is captured (scalar-capture-use). A running mean of per-batch losses, as
training loops log it."""
import torch


@torch.compile
def mean_loss(losses: torch.Tensor):
    total = 0.0
    running = 0.0
    for loss in losses:
        total = total + loss.sum().item()
        running += loss.max().item()
    return total / len(losses), running


ENTRY = mean_loss.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [(torch.arange(6.0).reshape(3, 2),), (torch.ones(1, 4),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (0, 0)
EXPECTED_TAGS = [("GM106", "declined"), ("GM106", "declined")]
EXPECTED_DECLINES = [
    ("GM106", "`total` is assigned again"),
    ("GM106", "it is used by `running += loss.max().item()`"),
]
