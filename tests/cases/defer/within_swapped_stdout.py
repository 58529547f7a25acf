"""[Defer] A print inside the `with` of a context manager that swaps sys.stdout for the
program's own buffer until it exits: Dynamo traces the swap, so the run-time check of the
deferred call sees another stream than the boundary's and makes the call at once, as the
original did, into the buffer. Deferred, it would have been replayed to the boundary's
stdout after the manager put it back."""
import contextlib
import io
import sys

import torch

buffer = io.StringIO()


@contextlib.contextmanager
def into_buffer():
    saved = sys.stdout
    sys.stdout = buffer
    try:
        yield
    finally:
        sys.stdout = saved


def ENTRY(x):
    y = x * 2
    with into_buffer():
        print("inside", y.sum())
    print("after", y.mean())
    return y + 1


def reset():
    buffer.seek(0)
    buffer.truncate()


INPUTS = [(torch.arange(3.0),), (torch.ones(2, 2),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (0, 0)
EXPECTED_TAGS = [("GM102", "defer"), ("GM102", "defer")]
