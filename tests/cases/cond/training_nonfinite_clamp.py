"""[Cond] in training under a static `if self.training:` (transformers,
src/transformers/models/conditional_detr/modeling_conditional_detr.py,
ConditionalDetrEncoderLayer.forward: `if self.training: if not
torch.isfinite(hidden_states).all(): clamp_value = torch.finfo(...).max - 1000; hidden_states =
torch.clamp(...)`). The static `if` stays as written around the rewritten inner one (it is no
break site, so it does not cover the inner `if`); with gradients where_ok refuses and
runtime.cond_ok selects torch.cond, which differentiates only the branch taken."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.train()

    def forward(self, hidden_states, scale):
        hidden_states = self.fc(hidden_states) * scale
        if self.training:
            if not torch.isfinite(hidden_states).all():
                clamp_value = torch.finfo(hidden_states.dtype).max - 1000
                hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return hidden_states * 0.5


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 4), torch.tensor(1e38)),
    (torch.randn(2, 4), torch.tensor(1.0)),
]
GRAD = True
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
