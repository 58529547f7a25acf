"""[Where] declined: under a static condition prefix, tail duplication computes the false
side (the static `elif`) even where the tensor condition holds, so its test must be a flag
(a name or attribute, checked to be a bool, number or None, or one ordered against a number
literal); a comparison of two values whose types the text cannot show may raise there (a
tensor of several elements), where the original never evaluates it. From
huggingface/transformers:
src/transformers/models/reformer/modeling_reformer.py: LSHSelfAttention._hash_vectors, with
the extra bucket asked for only when more hashing rounds run than `min_hashes` (a parameter
here, a literal in the original)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_buckets = 4
        self.register_buffer("random_rotations", torch.randn(1, 4, 2, 2))

    def _hash_vectors(self, vectors, num_hashes, attention_mask, increase_num_buckets=False, min_hashes=1):
        batch_size = vectors.shape[0]
        num_buckets = self.num_buckets
        rotated_vectors = torch.einsum("bmtd,mdhr->bmhtr", vectors, self.random_rotations)
        rotated_vectors = torch.cat([rotated_vectors, -rotated_vectors], dim=-1)
        buckets = torch.argmax(rotated_vectors, dim=-1)

        if attention_mask is not None and (attention_mask.sum().item() < batch_size * attention_mask.shape[-1]):
            num_buckets = num_buckets + 1
            buckets_mask = attention_mask.to(torch.bool)[:, None, None, :].expand(buckets.shape)
            buckets = torch.where(
                buckets_mask, buckets, torch.tensor(num_buckets - 1, dtype=torch.long, device=buckets.device)
            )
        elif increase_num_buckets and num_hashes > min_hashes:
            num_buckets = num_buckets + 1

        offsets = torch.arange(num_hashes, device=vectors.device)
        offsets = (offsets * num_buckets).view((1, 1, -1, 1))
        offset_buckets = (buckets + offsets).flatten(start_dim=2, end_dim=3)
        return offset_buckets

    def forward(self, hidden_states, attention_mask=None, increase_num_buckets=False):
        return self._hash_vectors(hidden_states[:, None], 2, attention_mask, increase_num_buckets)


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 5, 4), torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])),
    (torch.randn(2, 5, 4), torch.ones(2, 5, dtype=torch.long)),
    (torch.randn(2, 5, 4), None, False),
    (torch.randn(2, 5, 4), None, True),
    (torch.randn(2, 5, 4), torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]), True),
    (torch.randn(2, 5, 4), torch.ones(2, 5, dtype=torch.long), True),
    (torch.randn(2, 5, 4), torch.tensor([[1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]])),
    (torch.randn(1, 5, 4), torch.tensor([[True, True, True, True, False]])),
]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (3, 3)
EXPECTED_TAGS = [("GM101", "declined"), ("GM106", "declined")]
EXPECTED_DECLINES = [("GM101", "tail duplication: the static test `increase_num_buckets and num_hashes > min_hashes` is not a flag"), ("GM106", "the scalar is not captured: it is used by")]
