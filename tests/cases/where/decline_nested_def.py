"""[Where] declined: a branch defines a function; another deletes a name; another
declares a global; another yields."""
import torch

COUNT = 0


def ENTRY(x: torch.Tensor):
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


torch.compile(deleting)
torch.compile(declaring)
torch.compile(generating)
INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
DECLINES = ["nested def", "del", "mutates state", "yield"]

torch.compile(ENTRY)  # traced: an entry point of the mender
