"""[Trap] guards the in-graph forms cannot lower, one after another in the call's first
graph: a message formatted from tensor values, statements before the raise, a raised
instance, a chained cause. Each test becomes runtime.rerun_if: the graph holds their asserts,
and a failure runs the call again eagerly, raising as the original."""
import torch

ERROR = ValueError("prebuilt")


@torch.compile
def forward(x: torch.Tensor, n: int):
    if x.sum() < 0:
        raise ValueError(f"negative sum {x.sum()}")
    if x.min() < -5:
        x = x.clamp(min=-5)
        raise ValueError("clamped")
    if x.max() > 50:
        raise ERROR
    if x.std() > 9:
        raise ValueError("spread") from None
    return x * n


ENTRY = forward.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [
    (torch.tensor([0.5, 0.5]), 1),
    (torch.tensor([-1.0, -2.0]), 1),
    (torch.tensor([-10.0, 11.0]), 1),
    (torch.tensor([60.0] + [-2.5] * 10), 1),
    (torch.tensor([24.0] + [-2.5] * 9), 1),
]
EXPECTED_BREAKS = (4, 0)
EXPECTED_GRAPHS = (5, 1)
EXPECTED_TAGS = [
    ("GM105", "trap"),
    ("GM105", "trap"),
    ("GM105", "trap"),
    ("GM105", "trap"),
]
