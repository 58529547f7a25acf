"""FSMT's encoder input: `make_padding_mask` returns None when no token is padding, so the
encoder skips the masking. Whether the mask is a tensor or None depends on the data: the
structure of what flows on, not only its values, so no single graph holds both.
Not fixable by design (a data-dependent choice between None and a tensor)."""

import torch
from torch import nn

ORIGIN = "huggingface/transformers: src/transformers/models/fsmt/modeling_fsmt.py: make_padding_mask"
CATEGORY = "out_of_scope"


def make_padding_mask(input_ids, padding_idx=1):
    """True for pad tokens"""
    padding_mask = input_ids.eq(padding_idx)
    if not padding_mask.any():
        padding_mask = None
    return padding_mask


class FSMTEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(8, 4, padding_idx=1)

    def forward(self, input_ids):
        attention_mask = make_padding_mask(input_ids, 1)
        x = self.embed_tokens(input_ids)
        if attention_mask is not None:
            x = x * (1 - attention_mask.unsqueeze(-1).type_as(x))
        return x.sum(1)


ENTRY = FSMTEncoder
INPUTS = [
    (torch.tensor([[2, 3, 4, 1], [5, 6, 7, 2]]),),
    (torch.tensor([[2, 3, 4, 5]]),),
]
