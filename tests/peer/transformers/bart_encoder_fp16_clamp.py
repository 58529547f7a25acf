"""BART's encoder layer: after the feed-forward block, a float16 activation that overflowed
is clamped back into range. The condition joins a dtype test (static) with a tensor
predicate (`not torch.isfinite(x).all()`), so plain torch.compile breaks on it."""

import torch
from torch import nn

ORIGIN = "huggingface/transformers: src/transformers/models/bart/modeling_bart.py: BartEncoderLayer.forward"
CATEGORY = "where"


class BartEncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 4)
        self.final_layer_norm = nn.LayerNorm(4)
        self.dropout = 0.0
        self.activation_dropout = 0.0

    def forward(self, hidden_states):
        residual = hidden_states
        hidden_states = nn.functional.gelu(self.fc1(hidden_states))
        hidden_states = nn.functional.dropout(hidden_states, p=self.activation_dropout, training=self.training)
        hidden_states = self.fc2(hidden_states)
        hidden_states = nn.functional.dropout(hidden_states, p=self.dropout, training=self.training)
        hidden_states = residual + hidden_states
        hidden_states = hidden_states * 1000.0

        if hidden_states.dtype == torch.float16 and not torch.isfinite(hidden_states).all():
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)

        return hidden_states


def make():
    torch.manual_seed(0)
    return BartEncoderLayer().half()


torch.manual_seed(0)
ENTRY = BartEncoderLayer
INPUTS = [
    (torch.randn(2, 3, 4).half(),),
    (torch.full((2, 3, 4), 60.0).half(),),
]
