"""[Trap] runtime.rerun_if after a change of state in the call (a buffer updated in place
before the guard): running the call again would update it twice, so the `if` tests its
condition as written, a graph break where the original broke."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x: torch.Tensor):
        self.calls.add_(1)
        if (x < 0).any():
            raise ValueError(f"negative input after {self.calls} calls: {x}")
        return x.sqrt() + self.calls


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([1.0, -4.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM105", "trap")]
