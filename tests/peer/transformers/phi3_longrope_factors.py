"""Phi-3's LongRoPE rotary embedding (transformers 4.41-4.44): the rescaling factors are
chosen by the largest position id (`seq_len = torch.max(position_ids) + 1; if seq_len >
self.original_max_position_embeddings: ext_factors = long ... else: ... short`), a branch
on a 0-d tensor, before `inv_freq` is rebuilt and stored on the module."""

import math

import torch
from torch import nn

ORIGIN = "huggingface/transformers: src/transformers/models/phi3/modeling_phi3.py: Phi3LongRoPEScaledRotaryEmbedding.forward"
CATEGORY = "where"


class Config:
    max_position_embeddings = 32
    original_max_position_embeddings = 8
    rope_theta = 10000.0
    rope_scaling = {"short_factor": [1.0, 1.5], "long_factor": [2.0, 6.0]}


class Phi3RotaryEmbedding(nn.Module):
    def __init__(self, dim, max_position_embeddings=2048, base=10000, device=None):
        super().__init__()

        self.dim = dim
        self.max_position_embeddings = max_position_embeddings
        self.base = base
        self.register_buffer("inv_freq", None, persistent=False)


class Phi3LongRoPEScaledRotaryEmbedding(Phi3RotaryEmbedding):
    def __init__(self, dim=4, config=Config(), device=None):
        super().__init__(dim, config.max_position_embeddings, config.rope_theta, device)

        self.short_factor = config.rope_scaling["short_factor"]
        self.long_factor = config.rope_scaling["long_factor"]
        self.original_max_position_embeddings = config.original_max_position_embeddings

    @torch.no_grad()
    def forward(self, x, position_ids, seq_len=None):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.original_max_position_embeddings:
            ext_factors = torch.tensor(self.long_factor, dtype=torch.float32, device=x.device)
        else:
            ext_factors = torch.tensor(self.short_factor, dtype=torch.float32, device=x.device)

        inv_freq_shape = torch.arange(0, self.dim, 2, dtype=torch.int64, device=x.device).float() / self.dim
        self.inv_freq = 1.0 / (ext_factors * self.base**inv_freq_shape)

        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()

        # Force float32 since bfloat16 loses precision on long contexts
        # See https://github.com/huggingface/transformers/pull/29285
        device_type = x.device.type
        device_type = device_type if isinstance(device_type, str) and device_type != "mps" else "cpu"
        with torch.autocast(device_type=device_type, enabled=False):
            freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)
            emb = torch.cat((freqs, freqs), dim=-1)

            scale = self.max_position_embeddings / self.original_max_position_embeddings
            if scale <= 1.0:
                scaling_factor = 1.0
            else:
                scaling_factor = math.sqrt(1 + math.log(scale) / math.log(self.original_max_position_embeddings))

            cos = emb.cos() * scaling_factor
            sin = emb.sin() * scaling_factor
        return cos.to(x.dtype), sin.to(x.dtype)


ENTRY = Phi3LongRoPEScaledRotaryEmbedding
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 1, 5, 4), torch.arange(5).expand(2, 5)),
    (torch.randn(2, 1, 5, 4), torch.arange(7, 12).expand(2, 5)),
    (torch.randn(1, 1, 8, 4), torch.arange(8)[None]),
]
