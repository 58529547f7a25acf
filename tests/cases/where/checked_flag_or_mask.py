"""[Where] checked condition variable: a Python flag and a tensor predicate combined with `or`
in a variable (fairseq, fairseq/models/transformer/transformer_encoder.py,
TransformerEncoderBase.forward_scriptable: `has_pads = src_tokens.device.type == "xla" or
encoder_padding_mask.any()`, then `if has_pads: x = x * (1 - mask)`). `or` returns one of its
operands, so `has_pads` is `True` or the tensor: the rewrite checks `runtime.tensors(has_pads)`
and runs the original `if` when it is the Python value."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.padding_idx = 1
        self.embed_tokens = nn.Embedding(8, 4, padding_idx=1)

    def forward(self, src_tokens):
        encoder_padding_mask = src_tokens.eq(self.padding_idx)
        has_pads = src_tokens.device.type == "xla" or encoder_padding_mask.any()
        x = self.embed_tokens(src_tokens) * 2.0
        if has_pads:
            x = x * (1 - encoder_padding_mask.unsqueeze(-1).type_as(x))
        return x.transpose(0, 1)


INPUTS = [
    (torch.tensor([[2, 3, 4, 1], [5, 6, 7, 2]]),),
    (torch.tensor([[2, 3, 4, 5], [5, 6, 7, 2]]),),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
