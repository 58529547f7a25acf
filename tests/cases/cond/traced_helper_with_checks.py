"""[Cond] verified by tracing: the branch calls a helper with a validation (`raise` on a
static shape test), and a loop over a constant range, which the mender's
proofs cannot show torch.cond traces; Dynamo's trace is the check (`runtime.cond_on`). A
matrix traces, and the site is one graph. A vector fails the validation while Dynamo traces
the branch, whichever side the data selects: the site is switched off and the original `if`
runs, raising ValueError only where the original takes the branch (the last two inputs:
the vector with a positive mean raises, the negative one returns its input)."""

import torch


def normalise(x, eps):
    if x.dim() != 2:
        raise ValueError("expected a matrix")
    for _ in range(2):
        x = x / (x.norm(dim=-1, keepdim=True) + eps)
    return x


def ENTRY(x: torch.Tensor, w: torch.Tensor):
    h = x @ w
    if h.mean() > 0:
        y = normalise(h, 1e-6) * 3
    else:
        y = h - 1
    return y


INPUTS = [
    (torch.ones(2, 3), torch.eye(3)),
    (-torch.ones(2, 3), torch.eye(3)),
    (torch.ones(3), torch.eye(3)),
    (-torch.ones(3), torch.eye(3)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "cond")]

torch.compile(ENTRY)  # traced: an entry point of the mender
