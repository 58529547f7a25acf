"""[Where] checked dtype: torch.finfo of a dtype not shown to be floating raises TypeError on
integer tensors, so the branch value may be computed only where the dtype is floating: the
check asks `hidden.is_floating_point()` too (transformers' overflow clamps, as in
ConditionalDetrEncoderLayer, without a dtype test of their own). An integer tensor takes
the original statement."""
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
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
