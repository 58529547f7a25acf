"""[Where] A static prefix (dtype test) stays a Python if around the predicated part:
the overflow guard of BART-like models."""
import torch


def ENTRY(hidden: torch.Tensor):
    hidden = hidden * 2
    if hidden.dtype == torch.float16 and torch.isinf(hidden).any():
        clamp_value = torch.finfo(hidden.dtype).max - 1000
        hidden = torch.clamp(hidden, min=-clamp_value, max=clamp_value)
    return hidden


INPUTS = [
    (torch.tensor([1.0, 60000.0], dtype=torch.float16),),
    (torch.tensor([1.0, 2.0], dtype=torch.float16),),
    (torch.tensor([1.0, 2.0]),),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
