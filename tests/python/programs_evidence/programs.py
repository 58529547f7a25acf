"""Programs for ``graphmend.compile``'s first-call evidence: branches on a tensor the text
gives no sign of (an unannotated argument), with side effects the first call must run once."""

import logging

import torch
from torch import nn

logger = logging.getLogger("graphmend.tests.evidence")


def scale(x, t):
    if t > 0:  # SITE: scale
        x = x * 2
    return x


def loud(x, t):
    """A print, a log record and an RNG draw around the branch."""
    print("scale", t.dtype)
    logger.warning("called with %s", x.shape)
    noise = torch.rand(x.shape)
    if t > 0:  # SITE: loud
        x = x * 2
    return x + noise


def in_loop(x, ts):
    """The branch inside a loop: Dynamo gives up on the frame (0 graphs)."""
    for t in ts:
        if t > 0:  # SITE: loop
            x = x * 2
    return x


def plain(x):
    """Nothing breaks: the first call's compiled code serves every call."""
    return torch.relu(x) * 2


class Norm(nn.Module):
    """BatchNorm's running statistics and a counter move once per call."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4)
        self.calls = 0

    def forward(self, x, t):
        self.calls += 1
        h = self.bn(x)
        if t > 0:  # SITE: norm
            h = h * 2
        return h


class Guarded(nn.Module):
    """A validation guard on an unannotated tensor argument."""

    def forward(self, x, t):
        if t < 0:  # SITE: guard
            raise ValueError("t must not be negative")
        return x * t


def masked_loss(loss, target):
    """A store through a mask computed from an unannotated argument: no sign of a tensor in
    the text."""
    valid = target >= 0
    out = loss * 1.0
    out[valid] = out[valid] * 2.0 - 1.0  # SITE: masked
    return out


def entry_scale():
    return scale, (torch.ones(3), torch.tensor(1.0))


def entry_loop():
    return in_loop, (torch.ones(3), [torch.tensor(1.0), torch.tensor(2.0)])


def trim_to_length(x, length):
    """A length read with int() from an unannotated argument: no sign of a tensor in the
    text; the read only sizes a slice."""
    x = x * 2.0
    n = int(length)  # SITE: length
    return x[:, :n]


def leading_length(x, length):
    """The same read as the function's first operation: the break has no graph before it to
    name it, and counts as evidence all the same."""
    n = int(length)  # SITE: leading
    return x[:, :n] * 2.0
