"""declined: RAG's nested `_mask_pads` (transformers, src/transformers/models/rag/
modeling_rag.py, RagTokenForGeneration.get_nll) called once with a tensor get_nll made and
once with one of get_nll's own inputs: the parameter may be the caller's tensor, so the
`if pad_mask.any():` stays."""
import torch


def ENTRY(seq_logits: torch.Tensor, target: torch.Tensor, prior: torch.Tensor):
    def _mask_pads(ll):
        pad_mask = target.eq(0)
        if pad_mask.any():
            ll.masked_fill_(pad_mask, 0.0)
        return ll

    ll = _mask_pads(seq_logits.log_softmax(-1).gather(-1, target.unsqueeze(-1)).squeeze(-1))
    prior = _mask_pads(prior)
    return ll.sum(-1) + prior.sum(-1)


INPUTS = [
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]]), torch.randn(2, 4)),
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]]), torch.randn(2, 4)),
]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (4, 4)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "is a parameter of a function that is not nested")]
