"""[Defer] A tensor printed, then changed in place: the replay prints the value it had at
the print (the recorded arguments are snapshots)."""
import torch


def ENTRY(x: torch.Tensor):
    y = x * 2
    print("before:", y)
    y.add_(100)
    print("after:", y)
    return y


INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM102", "defer"), ("GM102", "defer")]
