"""[Defer] print calls: positional tensors, keywords, file=, an empty print."""
import sys

import torch


@torch.compile
def forward(x: torch.Tensor, scale: float):
    y = x * scale
    print("y =", y)
    print(y, y.sum(), sep=" | ", end="\n\n")
    print("to stderr", y.shape, file=sys.stderr, flush=True)
    print()
    y.add_(1)  # the printed y must not show this
    return y


ENTRY = forward.__wrapped__  # the undecorated function: the suite runs and compiles it
INPUTS = [(torch.tensor([1.0, 2.0]), 2.0)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM102", "defer"), ("GM102", "defer"), ("GM102", "defer"), ("GM102", "defer")]
