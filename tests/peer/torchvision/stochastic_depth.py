"""torchvision's stochastic depth (drop path): all its conditions are on Python arguments
(`p`, `training`, `mode`), so it does not break. Run in eval, where it returns its input."""

import torch
from torch import nn

ORIGIN = "pytorch/vision: torchvision/ops/stochastic_depth.py: stochastic_depth"
CATEGORY = "no_break"


def stochastic_depth(input, p, mode, training=True):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}")
    if mode not in ["batch", "row"]:
        raise ValueError(f"mode has to be either 'batch' or 'row', but got {mode}")
    if not training or p == 0.0:
        return input

    survival_rate = 1.0 - p
    if mode == "row":
        size = [input.shape[0]] + [1] * (input.ndim - 1)
    else:
        size = [1] * input.ndim
    noise = torch.empty(size, dtype=input.dtype, device=input.device)
    noise = noise.bernoulli_(survival_rate)
    if survival_rate > 0.0:
        noise.div_(survival_rate)
    return input * noise


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x, p, mode):
        return x + stochastic_depth(self.fc(x), p, mode, self.training)


def make():
    torch.manual_seed(0)
    return Block().eval()


ENTRY = Block
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 4), 0.2, "row"),
    (torch.randn(2, 4), 1.5, "row"),
]
