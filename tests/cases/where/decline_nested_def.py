"""[Where] declined: a branch defines a function; another deletes a name; another
declares a global; another yields."""
import torch

COUNT = 0


def defining(x: torch.Tensor):
    y = x
    if x.sum() > 0:
        def double(v):
            return v * 2
        y = double(x)
    return y


def deleting(x: torch.Tensor):
    y = x
    if x.sum() > 0:
        del y
        y = x
    return y


def declaring(x: torch.Tensor):
    global COUNT
    y = x
    if x.sum() > 0:
        global COUNT
        y = x * 2
    return y


def generating(x: torch.Tensor):
    y = x
    if x.sum() > 0:
        y = yield x
    return y


torch.compile(defining)
torch.compile(deleting)
torch.compile(declaring)
torch.compile(generating)
EXPECTED_TAGS = [
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
    ("GM101", "declined"),
]
EXPECTED_DECLINES = [
    ("GM101", "nested def"),
    ("GM101", "del"),
    ("GM101", "mutates state"),
    ("GM101", "yield"),
]
