"""[Trap] `if not torch.isfinite(x).all(): raise` in a module's forward."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def forward(self, logits: torch.Tensor):
        if not torch.isfinite(logits).all():
            raise RuntimeError("logits contain inf or nan")
        return logits.log_softmax(dim=-1)


INPUTS = [(torch.tensor([[1.0, 2.0]]),), (torch.tensor([[1.0, float("inf")]]),)]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM105", "trap")]
