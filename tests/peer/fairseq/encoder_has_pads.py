"""fairseq's Transformer encoder: the padding mask is applied to the embeddings only when
there is padding, a Python flag combined with a tensor predicate through a variable
(`has_pads = src_tokens.device.type == "xla" or encoder_padding_mask.any()`; `if has_pads:`)."""

import math

import torch
from torch import nn

ORIGIN = "facebookresearch/fairseq: fairseq/models/transformer/transformer_encoder.py: TransformerEncoderBase.forward_scriptable"
CATEGORY = "where"


class TransformerEncoderBase(nn.Module):
    def __init__(self):
        super().__init__()
        self.padding_idx = 1
        self.embed_tokens = nn.Embedding(8, 4, padding_idx=1)
        self.embed_scale = math.sqrt(4)
        self.layer = nn.Linear(4, 4)

    def forward_embedding(self, src_tokens, token_embedding=None):
        # embed tokens and positions
        if token_embedding is None:
            token_embedding = self.embed_tokens(src_tokens)
        x = embed = self.embed_scale * token_embedding
        return x, embed

    def forward_scriptable(self, src_tokens, src_lengths=None, return_all_hiddens=False, token_embeddings=None):
        # compute padding mask
        encoder_padding_mask = src_tokens.eq(self.padding_idx)
        has_pads = src_tokens.device.type == "xla" or encoder_padding_mask.any()

        x, encoder_embedding = self.forward_embedding(src_tokens, token_embeddings)

        # account for padding while computing the representation
        if has_pads:
            x = x * (1 - encoder_padding_mask.unsqueeze(-1).type_as(x))

        # B x T x C -> T x B x C
        x = x.transpose(0, 1)
        x = self.layer(x)
        return x, encoder_padding_mask

    def forward(self, src_tokens):
        return self.forward_scriptable(src_tokens)


ENTRY = TransformerEncoderBase
INPUTS = [
    (torch.tensor([[2, 3, 4, 1], [5, 6, 7, 2]]),),
    (torch.tensor([[2, 3, 4, 5], [5, 6, 7, 2]]),),
]
