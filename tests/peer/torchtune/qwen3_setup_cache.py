"""torchtune's Qwen 3 attention (grouped-query: the cache holds the key-value heads),
setting up its key-value cache before generation: a cache already there (from the constructor or an earlier call) is kept and logged
(`logger.warning("Key value caches are already setup. You cannot call ``setup_caches()``
twice. Skipping.")`); otherwise a KVCache of the batch size and sequence length is made and
caching enabled. Here a two-layer decoder sets up its layers' caches before each step (as
TransformerDecoder.setup_caches loops over its layers; the first layer's cache is given to
its constructor) and attends over the step's tokens, writing them into the caches
(torchtune's KVCache.update, shrunk).
Plain torch.compile (torch 2.13) breaks on the logger call ("logging.Logger methods are not
supported"), inside a loop, so it gives up on the whole frame."""

import logging

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "pytorch/torchtune: torchtune/models/qwen3/_attention.py: Qwen3Attention.setup_cache"
CATEGORY = "defer"

logger = logging.getLogger("torchtune.models.qwen3._attention")


class KVCache(nn.Module):
    def __init__(self, batch_size, max_seq_len, num_kv_heads, head_dim, dtype):
        super().__init__()
        cache_shape = (batch_size, num_kv_heads, max_seq_len, head_dim)
        self.register_buffer("k_cache", torch.zeros(cache_shape, dtype=dtype), persistent=False)
        self.register_buffer("v_cache", torch.zeros(cache_shape, dtype=dtype), persistent=False)
        self.register_buffer("cache_pos", torch.arange(0, cache_shape[2]), persistent=False)
        self.batch_size = batch_size

    def update(self, k_val, v_val):
        bsz, _, seq_len, _ = k_val.shape
        if bsz > self.k_cache.shape[0]:
            raise ValueError(
                f"The current cache has been setup with a batch size of {self.k_cache.shape[0]}"
                f", but found new key tensors with batch size {k_val.shape[0]}!"
            )
        self.k_cache[:, :, self.cache_pos[:seq_len]] = k_val
        self.v_cache[:, :, self.cache_pos[:seq_len]] = v_val
        self.cache_pos.add_(seq_len)
        return self.k_cache, self.v_cache


class Qwen3Attention(nn.Module):
    def __init__(self, embed_dim=8, num_heads=4, num_kv_heads=2, head_dim=4, kv_cache=None):
        super().__init__()
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.head_dim = head_dim
        self.q_proj = nn.Linear(embed_dim, num_heads * head_dim, bias=False)
        self.k_proj = nn.Linear(embed_dim, num_kv_heads * head_dim, bias=False)
        self.v_proj = nn.Linear(embed_dim, num_kv_heads * head_dim, bias=False)
        self.output_proj = nn.Linear(num_heads * head_dim, embed_dim, bias=False)
        self.kv_cache = kv_cache
        self.cache_enabled = False

    def setup_cache(self, batch_size, dtype, max_seq_len):
        # Don't overwrite user defined kv_cache from init
        if self.kv_cache is not None:
            logger.warning(
                "Key value caches are already setup. You cannot call ``setup_caches()`` twice. Skipping."
            )
        else:
            self.kv_cache = KVCache(
                batch_size=batch_size,
                max_seq_len=max_seq_len,
                num_kv_heads=self.num_kv_heads,
                head_dim=self.head_dim,
                dtype=dtype,
            )
            self.cache_enabled = True

    def forward(self, x):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.num_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.num_kv_heads, self.head_dim).transpose(1, 2)
        if self.kv_cache is not None and self.cache_enabled:
            k, v = self.kv_cache.update(k, v)
        q_per_kv = self.num_heads // self.num_kv_heads
        k = k.repeat_interleave(q_per_kv, dim=1)
        v = v.repeat_interleave(q_per_kv, dim=1)
        output = F.softmax((q @ k.transpose(-2, -1)).float() / self.head_dim**0.5, dim=-1).type_as(q) @ v
        return self.output_proj(output.transpose(1, 2).reshape(b, s, -1))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([
            Qwen3Attention(kv_cache=KVCache(2, 8, 2, 4, torch.float32)),
            Qwen3Attention(),
        ])

    def setup_caches(self, batch_size, dtype, max_seq_len):
        for layer in self.layers:
            layer.setup_cache(batch_size, dtype, max_seq_len)

    def forward(self, x, max_seq_len):
        self.setup_caches(x.shape[0], x.dtype, max_seq_len)
        for layer in self.layers:
            x = x + layer(x)
        return x, self.layers[1].kv_cache.k_cache


torch.manual_seed(0)
ENTRY = Decoder
INPUTS = [
    (torch.randn(2, 3, 8), 8),
    (torch.randn(2, 2, 8), 8),
    # a larger batch than the caches were set up with
    (torch.randn(3, 1, 8), 8),
]
