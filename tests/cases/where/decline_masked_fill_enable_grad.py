"""declined: RAG's padding fill (transformers, src/transformers/models/rag/modeling_rag.py,
RagTokenForGeneration.get_nll) in a function that turns grad mode on for part of its work
(`with torch.enable_grad():`, as attribution code computing log-likelihoods does): a tensor
made there may be saved for backward even when grad mode is off at the fill, and an update
under an all-False mask would still bump its version counter."""
import torch


def ENTRY(seq_logits: torch.Tensor, target: torch.Tensor):
    with torch.enable_grad():
        ll = (seq_logits * 0.5).gather(-1, target.unsqueeze(-1)).squeeze(-1)
    pad_mask = target.eq(0)
    if pad_mask.any():
        ll.masked_fill_(pad_mask, 0.0)
    return ll.sum(-1)


torch.manual_seed(0)
INPUTS = [
    (torch.randint(-8, 8, (2, 4, 6)).float(), torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]])),
    (torch.randint(-8, 8, (2, 4, 6)).float(), torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "changes grad mode")]
