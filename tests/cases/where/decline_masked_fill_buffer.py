"""declined: RAG's padding fill (transformers, src/transformers/models/rag/modeling_rag.py,
RagTokenForGeneration.get_nll, `if pad_mask.any(): ll.masked_fill_(pad_mask, 0.0)`) on a
tensor the module holds (a buffer read through a local) rather than one the traced code
created: a caller may have saved it for backward, and an update under an all-False mask
would still bump its version counter."""
import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("ll", torch.randn(2, 4))

    def forward(self, target):
        ll = self.ll
        pad_mask = target.eq(0)
        if pad_mask.any():
            ll.masked_fill_(pad_mask, 0.0)
        return ll.sum(-1)


INPUTS = [
    (torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]]),),
    (torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]]),),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "may not be one the traced code created")]
