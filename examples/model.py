"""A small transformer-style block with the graph breaks GraphMend targets.

Under torch.compile each marked line breaks the graph:
  * a validation guard that raises on a tensor condition        ([Trap])
  * a data-dependent branch on a reduction of a tensor          ([Where])
  * a print of a tensor inside forward                          ([Defer])
"""

import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


class GatedFeedForward(nn.Module):
    def __init__(self, dim: int, hidden: int, dropout: float = 0.1):
        super().__init__()
        self.up = nn.Linear(dim, 2 * hidden)
        self.down = nn.Linear(hidden, dim)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("max_seen", torch.zeros(()))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, value = self.up(x).chunk(2, dim=-1)
        return self.down(self.dropout(F.silu(gate) * value))


class Block(nn.Module):
    def __init__(self, dim: int = 64, heads: int = 4, hidden: int = 128):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.ffn = GatedFeedForward(dim, hidden)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        # Validation guard: `if not cond: raise` on a tensor condition breaks the graph.
        if not torch.all(torch.isfinite(x)):
            raise ValueError("input contains NaN or Inf")

        h = self.norm1(x)
        attn_out, _ = self.attn(h, h, h, key_padding_mask=mask)
        x = x + attn_out

        # Data-dependent branch: the condition needs the tensor's value on the host.
        if x.abs().max() > 1e4:
            x = x / x.abs().max()
        else:
            x = x * 1.0

        # Python side effect inside the compiled region.
        print("block output mean:", x.mean())
        logger.info("seq_len=%d", x.shape[1])

        return x + self.ffn(self.norm2(x))


class TinyEncoder(nn.Module):
    def __init__(self, vocab: int = 1000, dim: int = 64, layers: int = 2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(layers))

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        mask = tokens == 0
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x, mask)
        return x.mean(dim=1)


def example():
    """A seeded model and an input: what `make demo` measures before and after mending."""
    torch.manual_seed(0)
    return TinyEncoder().eval(), (torch.randint(1, 1000, (2, 16)),)


if __name__ == "__main__":
    model = TinyEncoder()
    compiled = torch.compile(model)
    out = compiled(torch.randint(1, 1000, (2, 16)))
    print(out.shape)
