"""[Defer]: a logger call, a print and a warning handed a tensor converted by a builtin
(`logger.info("step %d loss %.4f", step, float(loss))`, `print("tokens", int(tokens))`,
`f"{float(loss):.3f}"`): as for `.item()`, the record keeps the tensor and the replay
applies the same builtin to it, so `%.4f` and `%d` format exactly what the original's did
and no conversion runs in the graph. A Python number passed to the builtin is converted at
the replay too (the same value); anything else that is not a one-element tensor makes the
call run at once, where the builtin converts or raises as before."""
import logging
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.step = 3

    def forward(self, x: torch.Tensor, mask: torch.Tensor, scale):
        loss = (self.lin(x) ** 2).mean() * scale
        tokens = mask.sum()
        logger.info("step %d loss %.4f", self.step, float(loss))
        print("tokens", int(tokens), "any", bool(tokens))
        warnings.warn(f"loss {float(loss):.3f} at scale {float(scale)}")
        return loss * 2


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3), torch.tensor([1, 0, 1]), 2),
    (torch.randn(4, 3), torch.tensor([0, 0, 0, 0]), torch.tensor(0.5)),
    (torch.randn(4, 3), torch.tensor([1, 1]), torch.tensor([1.0, 2.0])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM102", "defer"), ("GM103", "defer"), ("GM104", "defer"), ("GM106", "defer"), ("GM106", "defer"), ("GM106", "defer"), ("GM106", "defer")]
