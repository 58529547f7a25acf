"""declined: an overflow clamp under a static `if self.training:` (transformers'
ConditionalDetrEncoderLayer.forward) whose branch also counts the overflow on the module:
the inner `if` mutates state, and the static `if` around it is no break site that could
predicate it instead."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.overflows = 0
        self.train()

    def forward(self, hidden_states, scale):
        hidden_states = self.fc(hidden_states) * scale
        if self.training:
            if not torch.isfinite(hidden_states).all():
                self.overflows += 1
                clamp_value = torch.finfo(hidden_states.dtype).max - 1000
                hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return hidden_states * 0.5


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 4), torch.tensor(1e38)),
    (torch.randn(2, 4), torch.tensor(1.0)),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "mutates state")]
