"""[Scalar] a list read from a range of Python ints (asteroid's global layer norm: `dims =
torch.arange(1, len(x.shape)).tolist()`, then `x.mean(dim=dims)`): Dynamo breaks on
`.tolist()` of any tensor, but the list is the range itself. While compiling, where every
bound is an exact int and the range is short (`runtime.static_range_ok`), the mended code
builds `list(range(...))`; a float bound (`torch.arange(0, 2.0)` reads floats) or eager
code reads the tensor as written. A step and a `device` keyword are kept."""

import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, x, start=1):
        dims = torch.arange(start, len(x.shape)).tolist()
        every_other = torch.arange(0, x.shape[-1], 2, device=x.device).tolist()
        centred = x - x.mean(dim=dims, keepdim=True)
        return centred[..., every_other], dims, every_other


torch.manual_seed(0)
INPUTS = [(torch.randn(2, 3, 4),), (torch.randn(2, 3, 5, 2),), (torch.randn(2, 3, 4), 1.0)]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM106", "scalar"), ("GM106", "scalar")]
