"""[Where] declined: a variable live after the if is assigned in one branch only and is
not bound before it (different live sets); branches assigning nothing used later."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() > 0:
        y = x * 2
        z = x
    else:
        z = x - 1
    if z.mean() > 0:
        w = z + 1
    else:
        v = z
    return y * z


DECLINES = ["different live sets", "no variable used afterwards"]

torch.compile(ENTRY)  # traced: an entry point of the mender
