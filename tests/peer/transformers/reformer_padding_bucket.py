"""Reformer's LSH self-attention, hashing vectors into buckets: when the attention mask has
padding (`attention_mask.sum().item() < batch_size * seq_len`), padding tokens get an extra
bucket. The branch also changes a Python int (`num_buckets`) that the offsets use after it."""

import torch
from torch import nn

ORIGIN = "huggingface/transformers: src/transformers/models/reformer/modeling_reformer.py: LSHSelfAttention._hash_vectors"
CATEGORY = "where"


class LSHSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_buckets = 4
        self.num_attention_heads = 1
        self.attention_head_size = 4
        self.register_buffer("random_rotations", torch.randn(1, 4, 2, 2))

    def _hash_vectors(self, vectors, num_hashes, attention_mask, increase_num_buckets=False):
        batch_size = vectors.shape[0]
        num_buckets = self.num_buckets
        rotated_vectors = torch.einsum("bmtd,mdhr->bmhtr", vectors, self.random_rotations)
        rotated_vectors = torch.cat([rotated_vectors, -rotated_vectors], dim=-1)
        buckets = torch.argmax(rotated_vectors, dim=-1)

        if attention_mask is not None and (attention_mask.sum().item() < batch_size * attention_mask.shape[-1]):
            # add an extra bucket for padding tokens only
            num_buckets = num_buckets + 1
            # assign padding tokens extra bucket
            buckets_mask = attention_mask.to(torch.bool)[:, None, None, :].expand(buckets.shape)
            buckets = torch.where(
                buckets_mask, buckets, torch.tensor(num_buckets - 1, dtype=torch.long, device=buckets.device)
            )
        elif increase_num_buckets:
            num_buckets = num_buckets + 1

        # buckets is now (Batch_size x Num_Attn_Heads x Num_Hashes x Seq_Len).
        # Next we add offsets so that bucket numbers from different hashing rounds don't overlap.
        offsets = torch.arange(num_hashes, device=vectors.device)
        offsets = (offsets * num_buckets).view((1, 1, -1, 1))
        offset_buckets = (buckets + offsets).flatten(start_dim=2, end_dim=3)
        return offset_buckets

    def forward(self, hidden_states, attention_mask=None):
        vectors = hidden_states[:, None]
        return self._hash_vectors(vectors, 2, attention_mask)


torch.manual_seed(0)
ENTRY = LSHSelfAttention
INPUTS = [
    (torch.randn(2, 5, 4), torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])),
    (torch.randn(2, 5, 4), torch.ones(2, 5, dtype=torch.long)),
    (torch.randn(1, 5, 4),),
]
