"""Small training programs as users write them for torch.distributed: a data-dependent
branch inside the `for layer in self.layers:` loop (Dynamo skips the whole frame), a print
and a log record of per-rank values, a validation guard. Each rank runs the same code on
its own inputs, so what is printed differs by rank."""

import logging

import torch
from torch import nn

logger = logging.getLogger("graphmend.tests.distributed")


class Block(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x: torch.Tensor):
        return torch.tanh(self.fc(x))


class LoopBranch(nn.Module):
    """A branch on the activations inside the layer loop, then a print and a log record."""

    def __init__(self, width=8, depth=3):
        super().__init__()
        self.layers = nn.ModuleList([Block(width) for _ in range(depth)])
        self.head = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor):
        for layer in self.layers:
            x = layer(x)
            if x.sum() > 0:
                x = x * 0.5
            else:
                x = x - 1.0
        print(f"hidden mean {x.mean().item():.5f}")
        logger.warning("hidden norm %.5f", x.norm())
        return self.head(x).sum()


class GatedBlock(nn.Module):
    """A block that branches on its own activations and prints: under FSDP2 each block is
    compiled by itself."""

    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x: torch.Tensor):
        h = torch.tanh(self.fc(x))
        if h.mean() > 0:
            h = h * 2.0
        else:
            h = h + 1.0
        print(f"block mean {h.mean().item():.5f}")
        return h


class Stack(nn.Module):
    def __init__(self, width=8, depth=2):
        super().__init__()
        self.layers = nn.ModuleList([GatedBlock(width) for _ in range(depth)])
        self.head = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor):
        for layer in self.layers:
            x = layer(x)
        return self.head(x).sum()


class Guarded(nn.Module):
    """A validation guard on the inputs: a rank whose batch holds inf or nan raises."""

    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.head = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor):
        if not torch.isfinite(x).all():
            raise ValueError("the batch holds inf or nan")
        return self.head(torch.tanh(self.fc(x))).sum()
