"""Conditional DETR's encoder layer in training: a non-finite activation is clamped to the
dtype's range (`if self.training: if not torch.isfinite(hidden_states).all(): clamp`).
Runs with gradients (training mode, requires grad)."""

import torch
from torch import nn

ORIGIN = "huggingface/transformers: src/transformers/models/conditional_detr/modeling_conditional_detr.py: ConditionalDetrEncoderLayer.forward"
CATEGORY = "where"
GRAD = True


class ConditionalDetrEncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 4)
        self.final_layer_norm = nn.LayerNorm(4)
        self.train()

    def forward(self, hidden_states, scale):
        residual = hidden_states
        hidden_states = nn.functional.relu(self.fc1(hidden_states))
        hidden_states = self.fc2(hidden_states) * scale
        hidden_states = residual + hidden_states
        hidden_states = self.final_layer_norm(hidden_states) * scale

        if self.training:
            if not torch.isfinite(hidden_states).all():
                clamp_value = torch.finfo(hidden_states.dtype).max - 1000
                hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)

        return hidden_states


ENTRY = ConditionalDetrEncoderLayer
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3, 4), torch.tensor(1e38)),
    (torch.randn(2, 3, 4), torch.tensor(1.0)),
]
