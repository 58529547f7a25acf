"""[Defer] A print deferred in a compiled frame, then a helper whose `with` swaps sys.stdout
for the program's buffer and prints into it: the helper's print is made at once, without
replaying the pending record first (that record belongs to the terminal: replayed then, it
would land in the buffer). Each stream gets what the original wrote to it."""
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


def helper(y):
    with into_buffer():
        print("inside", y.sum())
    return y * 2


def ENTRY(x):
    y = x + 1
    print("before", y.mean())
    z = helper(y)
    return z - 1, buffer.getvalue()


def reset():
    buffer.seek(0)
    buffer.truncate()


INPUTS = [(torch.arange(3.0),), (torch.ones(2, 2),)]
EXPECTED_BREAKS = (3, 2)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM102", "defer"), ("GM102", "defer")]
