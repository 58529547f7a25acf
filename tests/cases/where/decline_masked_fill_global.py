"""declined: RAG's padding fill (transformers, src/transformers/models/rag/modeling_rag.py,
RagTokenForGeneration.get_nll, `if pad_mask.any(): ll.masked_fill_(pad_mask, 0.0)`) on a
module-level tensor: not a local the traced code created, so the `if` stays."""
import torch

LOG_LIKELIHOOD = torch.randn(2, 4)


def ENTRY(target: torch.Tensor):
    pad_mask = target.eq(0)
    if pad_mask.any():
        LOG_LIKELIHOOD.masked_fill_(pad_mask, 0.0)
    return LOG_LIKELIHOOD.sum(-1)


INPUTS = [
    (torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]]),),
    (torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]]),),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "may not be one the traced code created")]
