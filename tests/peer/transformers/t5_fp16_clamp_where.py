"""T5's feed-forward layer after transformers rewrote its float16 clamp by hand: the clamp
value is chosen with `torch.where(torch.isinf(x).any(), ...)`, so nothing breaks."""

import torch
from torch import nn

ORIGIN = "huggingface/transformers: src/transformers/models/t5/modeling_t5.py: T5Block.forward"
CATEGORY = "no_break"


class T5LayerFF(nn.Module):
    def __init__(self):
        super().__init__()
        self.wi = nn.Linear(4, 8, bias=False)
        self.wo = nn.Linear(8, 4, bias=False)

    def forward(self, hidden_states):
        hidden_states = hidden_states + self.wo(torch.relu(self.wi(hidden_states))) * 1000.0

        # clamp inf values to enable fp16 training
        if hidden_states.dtype == torch.float16:
            clamp_value = torch.where(
                torch.isinf(hidden_states).any(),
                torch.finfo(hidden_states.dtype).max - 1000,
                torch.finfo(hidden_states.dtype).max,
            )
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return hidden_states


def make():
    torch.manual_seed(0)
    return T5LayerFF().half()


ENTRY = T5LayerFF
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3, 4).half(),),
    (torch.full((2, 3, 4), 60.0).half(),),
]
