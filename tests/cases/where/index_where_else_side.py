"""[Where] a read by a computed index on the false side of an if, from huggingface/diffusers:
src/diffusers/schedulers/scheduling_ddpm.py: DDPMScheduler.previous_timestep (`if index ==
self.timesteps.shape[0] - 1: prev_t = torch.tensor(-1) else: prev_t =
self.timesteps[index + 1]`; the index is found with nonzero there, an input here, and the
last index is named before the if: in the condition itself the speculation would take
`self.timesteps.shape` for a tensor and check it at run time, which never holds). The
original reads `index + 1` only when the condition fails, past the end when it holds: the
read's mask is the negated condition (runtime.index_where's `failing`). Inputs: both sides,
a negative index on the path (Python's count from the end, as the original), and one past
the end on the path (IndexError, eagerly and compiled)."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("timesteps", torch.arange(900, -1, -100))

    def forward(self, index: torch.Tensor):
        last = self.timesteps.shape[0] - 1
        if index == last:
            prev_t = torch.tensor(-1)
        else:
            prev_t = self.timesteps[index + 1]
        return prev_t * 2


INPUTS = [
    (torch.tensor(3),),
    (torch.tensor(9),),
    (torch.tensor(-3),),
    (torch.tensor(11),),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (3, 1)
EXPECTED_TAGS = [("GM101", "where")]
