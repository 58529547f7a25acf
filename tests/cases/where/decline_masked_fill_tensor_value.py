"""declined: RAG's padding fill (transformers, src/transformers/models/rag/modeling_rag.py,
RagTokenForGeneration.get_nll) with a tensor as the value: a value tensor of another dtype
or device makes `masked_fill_` raise even under an all-False mask, where the original skips
it."""
import torch


def ENTRY(seq_logits: torch.Tensor, target: torch.Tensor):
    ll = seq_logits.log_softmax(-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
    floor = ll.min()
    pad_mask = target.eq(0)
    if pad_mask.any():
        ll.masked_fill_(pad_mask, floor)
    return ll.sum(-1)


INPUTS = [
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]])),
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "is neither a Python number")]
