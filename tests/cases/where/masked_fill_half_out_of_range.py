"""[Where] RAG's padding fill (transformers, src/transformers/models/rag/modeling_rag.py,
RagTokenForGeneration.get_nll) in float16 with a value float16 cannot hold: `masked_fill_`
refuses 1e5 in float16 even under an all-False mask, where the original skips it. The
rewrite is static, the dtype is not: `runtime.masked_fill_ok` sees the value out of the
dtype's range and the original `if` runs, break included."""
import torch


def ENTRY(seq_logits: torch.Tensor, target: torch.Tensor):
    ll = seq_logits.half().log_softmax(-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
    pad_mask = target.eq(0)
    if pad_mask.any():
        ll.masked_fill_(pad_mask, 1e5)
    return ll.sum(-1)


INPUTS = [
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]])),
    (torch.randn(2, 4, 6), torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "where")]
EXPECTED_DECLINES = []
