"""[Trap] runtime.rerun_if after a graph break in the call (a print of a user object, which
[Defer] declines): the guard is in a resumed frame, so the call has already run code a second
run would repeat (the print); the `if` tests its condition as written, a graph break where
the original broke."""
import torch


class Status:
    def __str__(self):
        return "status"


STATUS = Status()


def ENTRY(x: torch.Tensor):
    y = x * 2
    print(STATUS, y)
    if (y < 0).any():
        raise ValueError(f"negative: {y}")
    return y.sqrt()


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([1.0, -4.0]),)]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (3, 3)
EXPECTED_TAGS = [("GM102", "declined"), ("GM105", "trap")]
EXPECTED_DECLINES = [("GM102", "an instance of a class of this module")]
