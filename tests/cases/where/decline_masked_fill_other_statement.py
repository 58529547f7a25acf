"""declined: RAG's padding fill (transformers, src/transformers/models/rag/modeling_rag.py,
RagTokenForGeneration.get_nll) with another statement in the branch (a count of padded
tokens): only in-place updates under the mask may run unconditionally."""
import torch


def ENTRY(seq_logits: torch.Tensor, target: torch.Tensor):
    ll = seq_logits.log_softmax(-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
    pad_mask = target.eq(0)
    padded = torch.zeros(())
    if pad_mask.any():
        ll.masked_fill_(pad_mask, 0.0)
        padded = pad_mask.sum()
    return ll.sum(-1) + padded


INPUTS = [
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]])),
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "other than in-place updates under the mask")]
