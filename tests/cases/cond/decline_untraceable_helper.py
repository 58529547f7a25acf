"""[Cond] declined: a branch calls a helper of this module that torch.cond cannot trace
whole (a Python number read with `.item()`, then a Python `if`). torch.cond would fail the
compile where the original only breaks the graph, so the branch is left as it is."""

import torch


def scaled(x, w):
    total = x.sum().item()
    if total > 100:
        return x @ w / total
    return x @ w


def ENTRY(x: torch.Tensor, w: torch.Tensor):
    if x.mean() > 0:
        return scaled(x, w)
    return x


INPUTS = [(torch.ones(3, 3), torch.eye(3) * 2), (-torch.ones(3, 3), torch.eye(3))]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (3, 3)
EXPECTED_TAGS = [("GM101", "declined"), ("GM101", "declined"), ("GM106", "declined")]
EXPECTED_DECLINES = [
    ("GM106", "it is used by `total > 100`"),
    ("GM101", "condition `total > 100` is not a tensor expression"),
    ("GM101", "branch value `scaled(x, w)` is not pure"),
]

torch.compile(ENTRY)  # traced: an entry point of the mender
