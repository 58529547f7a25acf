"""[Where] declined: a chained comparison whose middle operand calls a function with a side
effect (it counts its calls, as a profiling hook would). The lowered form writes the middle
operand twice and evaluates every link, where Python evaluates it once and stops at the
first false link, so every operand must be pure."""

import torch

CALLS = []


def smooth(x):
    CALLS.append(1)
    return x.abs()


def ENTRY(x: torch.Tensor):
    if 0.5 < smooth(x).mean() < 2.0:
        x = x * 2
    return x


def reset():
    CALLS.clear()


INPUTS = [(torch.zeros(3),), (torch.full((3,), 5.0),), (torch.ones(3),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (1, 1)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "is not a tensor expression")]

torch.compile(ENTRY)  # traced: an entry point of the mender
