"""[Trap] asserts whose message is not a literal (asteroid's beamformer: `assert
torch.all(torch.isfinite(snr_post)), snr_post`; an f-string of tensor values; a call that
prints): `assert runtime.rerun_unless(<condition>), <message>`. While compiling, where the
call has changed nothing yet, the condition is an in-graph assert whose failure runs the
whole call again eagerly, where the original assert raises with its message (evaluated
once, only there); eagerly the assert is the original's. The `and` of two tensor tests is
lowered as for literal messages."""

import torch
from torch import nn


def describe(value):
    print("describing", value.shape)
    return f"bad value {value.sum():.2f}"


class ENTRY(nn.Module):
    def forward(self, x):
        y = x * 2
        assert torch.all(torch.isfinite(y)), y
        assert (y > -100).all() and (y < 100).all(), f"out of range: {y.max()}"
        assert y.sum() != 3, describe(y)
        return y + 1


INPUTS = [
    (torch.tensor([1.0, 2.0]),),
    (torch.tensor([1.0, float("inf")]),),
    (torch.tensor([1.0, 70.0]),),
    (torch.tensor([1.0, 0.5]),),
]
EXPECTED_BREAKS = (4, 0)
EXPECTED_GRAPHS = (5, 1)
EXPECTED_TAGS = [("GM102", "defer"), ("GM110", "trap"), ("GM110", "trap"), ("GM110", "trap")]
