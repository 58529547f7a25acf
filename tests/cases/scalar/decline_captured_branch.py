"""[Scalar] keeps the read of a scalar that is branched on or handed to code that may branch
on it: captured, the branch would break the graph where the read did (or, inside a helper
or a loop, more often). Here the number of active slots is read with `.item()` and passed
to a helper of the user's that tests it, and a norm read with `float()` is compared in an
if: both reads are declined (scalar-capture-use), and the function breaks as before."""
import torch


def _scale(x, active):
    if active == 0:
        return x
    return x / active


@torch.compile
def update(x, slots):
    active = slots.sum().item()
    y = _scale(x, active)
    norm = float(y.norm())
    if norm > 10.0:
        y = y * (10.0 / norm)
    return y


ENTRY = update.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [
    (torch.ones(3) * 30, torch.tensor([1, 0, 1])),
    (torch.ones(3), torch.tensor([0, 0, 0])),
]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (3, 3)
EXPECTED_TAGS = [("GM101", "declined"), ("GM106", "declined"), ("GM106", "declined")]
EXPECTED_DECLINES = [
    ("GM106", "it is passed to `_scale`"),
    ("GM106", "it is used by `norm > 10.0`"),
    ("GM101", "is not pure"),
]
