"""[Where] decline: a branch on a registered buffer whose body changes module state, from
rosinality/glow-pytorch: model.py: ActNorm.forward (there `self.initialized.item() == 0`;
written here without `.item()`, so only the registration `register_buffer("initialized",
...)` shows the condition to be a tensor). The first call initializes the parameters from
the data and sets the flag: the body writes state, so it cannot be evaluated
unconditionally, and the branch is reported and left as it is. Inputs: the first call
(initializes), then a call with the flag set."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, 3, 1, 1))
        self.scale = nn.Parameter(torch.ones(1, 3, 1, 1))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

    def initialize(self, input):
        with torch.no_grad():
            flatten = input.permute(1, 0, 2, 3).contiguous().view(input.shape[1], -1)
            mean = flatten.mean(1).unsqueeze(1).unsqueeze(2).unsqueeze(3).permute(1, 0, 2, 3)
            std = flatten.std(1).unsqueeze(1).unsqueeze(2).unsqueeze(3).permute(1, 0, 2, 3)
            self.loc.data.copy_(-mean)
            self.scale.data.copy_(1 / (std + 1e-6))

    def forward(self, input):
        input = input * 1.0
        if self.initialized == 0:
            self.initialize(input)
            self.initialized.fill_(1)
        return self.scale * (input + self.loc)


torch.manual_seed(0)
INPUTS = [(torch.randn(2, 3, 4, 4),), (torch.randn(2, 3, 4, 4) * 3,)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "a branch mutates state")]
