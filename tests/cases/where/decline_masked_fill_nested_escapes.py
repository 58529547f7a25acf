"""declined: RAG's nested `_mask_pads` (transformers, src/transformers/models/rag/
modeling_rag.py, RagTokenForGeneration.get_nll) handed to `map` instead of called
directly: its callers are no longer all in view, so its parameter may be anyone's tensor."""
import torch


def ENTRY(seq_logits: torch.Tensor, target: torch.Tensor):
    def _mask_pads(ll):
        pad_mask = target.eq(0)
        if pad_mask.any():
            ll.masked_fill_(pad_mask, 0.0)
        return ll

    logprobs = seq_logits * 0.5
    ll = logprobs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    smooth = logprobs.sum(-1)
    ll, smooth = map(_mask_pads, (ll, smooth))
    return ll.sum(-1) + smooth.sum(-1)


torch.manual_seed(0)
INPUTS = [
    (torch.randint(-8, 8, (2, 4, 6)).float(), torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]])),
    (torch.randint(-8, 8, (2, 4, 6)).float(), torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]])),
]
EXPECTED_BREAKS = (2, 2)
EXPECTED_GRAPHS = (3, 3)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "used other than by direct calls")]
