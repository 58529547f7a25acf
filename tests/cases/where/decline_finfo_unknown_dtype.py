"""declined: torch.finfo of a dtype not shown to be floating raises TypeError on integer
tensors, so the branch value cannot be evaluated when the branch is not taken."""
import torch


def ENTRY(hidden: torch.Tensor):
    hidden = hidden * 2
    if (hidden > 100).any():
        clamp_value = torch.finfo(hidden.dtype).max - 1000
        hidden = torch.clamp(hidden, min=-clamp_value, max=clamp_value)
    return hidden


INPUTS = [
    (torch.tensor([1.0, 60000.0]),),
    (torch.tensor([1, 2]),),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "not pure")]
