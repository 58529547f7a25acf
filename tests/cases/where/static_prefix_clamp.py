"""[Where] A static prefix of an `and` chain stays a Python if."""
import torch


def ENTRY(h: torch.Tensor):
    if h.dtype == torch.float16 and torch.isinf(h).any():
        h = torch.clamp(h, min=-64504.0, max=64504.0)
    return h


INPUTS = [(torch.tensor([1.0, float("inf")]).half(),), (torch.tensor([1.0, 2.0]).half(),),
          (torch.tensor([1.0, float("inf")]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]

torch.compile(ENTRY)  # traced: an entry point of the mender
