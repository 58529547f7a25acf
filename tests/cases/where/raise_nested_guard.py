"""[Where] a validation guard ending a tensor branch's else arm (`y = x; if x.min() < -100:
raise ...`): its raise is a raising leaf of the branch's tree, runtime.guard on `not c and
d` in the predicated form; the guard site (GM105) is fixed with the enclosing if."""
import torch


def ENTRY(x: torch.Tensor):
    y = x
    if x.sum() > 0:
        y = x * 2
    else:
        y = x
        if x.min() < -100:
            raise ValueError("too small")
    return y


INPUTS = [(torch.ones(2),), (-torch.ones(2),), (torch.tensor([-200.0, 1.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM105", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
