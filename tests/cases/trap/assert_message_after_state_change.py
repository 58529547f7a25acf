"""[Trap] an assert with a message that is not a literal after a change of state in the
call (a buffer updated in place before it): running the call again would update the buffer
twice, so `runtime.rerun_unless` returns the condition and the assert tests it as written,
a graph break where the original broke, raising the original's message."""

import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        self.calls.add_(1)
        assert (x >= 0).all(), f"negative input after {self.calls} calls: {x}"
        return x.sqrt() + self.calls


INPUTS = [(torch.tensor([1.0, 4.0]),), (torch.tensor([1.0, -4.0]),)]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM110", "trap")]
