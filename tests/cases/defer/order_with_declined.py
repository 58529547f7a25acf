"""[Defer] A deferred print followed by a print that stays in place (declined: a user
object): the output keeps the original order although a break remains between them."""
import torch


class Status:
    def __init__(self):
        self.calls = 0

    def __str__(self):
        self.calls += 1
        return f"status #{self.calls}"


STATUS = Status()


def reset():
    STATUS.calls = 0


def ENTRY(x: torch.Tensor):
    y = x * 2
    print("first", y)
    z = y + 1
    print(STATUS, z)
    return z * 3


INPUTS = [(torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (2, 1)
EXPECTED_GRAPHS = (3, 2)
EXPECTED_TAGS = [("GM102", "declined"), ("GM102", "defer")]
EXPECTED_DECLINES = [("GM102", "an instance of a class of this module")]
