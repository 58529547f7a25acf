"""fairseq's sinusoidal positional embedding: positions from the non-padding tokens
(`make_positions`: cumsum of the mask), and the table recomputed when a longer input comes
(`if max_pos > self.weights.size(0)`, static shapes). No break."""

import math

import torch
from torch import nn

ORIGIN = "facebookresearch/fairseq: fairseq/modules/sinusoidal_positional_embedding.py: SinusoidalPositionalEmbedding.forward"
CATEGORY = "no_break"


def make_positions(tensor, padding_idx: int, onnx_trace: bool = False):
    mask = tensor.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


class SinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, embedding_dim=4, padding_idx=1, init_size=6):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx
        self.register_buffer("weights", self.get_embedding(init_size, embedding_dim, padding_idx), persistent=False)

    @staticmethod
    def get_embedding(num_embeddings, embedding_dim, padding_idx=None):
        half_dim = embedding_dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
        emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
        emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
        if padding_idx is not None:
            emb[padding_idx, :] = 0
        return emb

    def forward(self, input):
        bsz, seq_len = input.shape
        max_pos = self.padding_idx + 1 + seq_len
        if max_pos > self.weights.size(0):
            # expand embeddings if needed
            self.weights = self.get_embedding(max_pos, self.embedding_dim, self.padding_idx).to(self.weights)
        positions = make_positions(input, self.padding_idx)
        return self.weights.index_select(0, positions.view(-1)).view(bsz, seq_len, -1).detach()


ENTRY = SinusoidalPositionalEmbedding
INPUTS = [(torch.tensor([[2, 3, 1], [4, 1, 1]]),)]
