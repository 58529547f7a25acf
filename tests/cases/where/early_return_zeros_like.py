"""[Where] An early return followed by a return (canonicalised to if/else)."""
import torch


def ENTRY(x: torch.Tensor):
    h = x * 2
    if h.sum() < 0:
        return torch.zeros_like(h)
    return h + 1


INPUTS = [(torch.tensor([-1.0, -2.0]),), (torch.tensor([1.0, 2.0]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
