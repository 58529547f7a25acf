"""[Where] a raise as the arm of a tensor `if` with an else branch (`if c: raise E("m") else:
y = ...`): a validation guard site (GM105, its body ends in a raise) that [Trap] does not
lower alone, predicated as a branch whose raising arm becomes runtime.guard on the
condition. `y`, assigned only in the else branch, need not be bound before the if: the
raising arm gives no value."""
import torch


def ENTRY(x: torch.Tensor):
    if x.sum() < 0:
        raise ValueError("negative total")
    else:
        y = x * 2
    return y


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([1.0, -4.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM105", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
