"""[Where] checked, with a static prefix: an optional mask tested for `None` and then for
any set element (the `if attention_mask is not None and ...` shape of transformers'
attention code). The prefix stays in the check: `mask is not None and
runtime.tensors(mask, x)`; with no mask the original statement runs."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, x, mask=None):
        if mask is not None and mask.any():
            x = x.masked_fill(mask, 0.0)
        return x * 2


INPUTS = [
    (torch.arange(4.0), torch.tensor([False, True, False, True])),
    (torch.arange(4.0), torch.zeros(4, dtype=torch.bool)),
    (torch.arange(4.0),),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
