"""[Where] declined: a condition on .item() (a Python scalar; GM106 is out of scope)."""
import torch


def ENTRY(x: torch.Tensor):
    y = x
    if x.sum().item() > 0:
        y = x * 2
    return y


INPUTS = [(torch.ones(2),), (-torch.ones(2),)]
DECLINES = [".item()"]

torch.compile(ENTRY)  # traced: an entry point of the mender
