"""declined: an in-place masked update of an input guarded by the same mask's `any()`
(transformers, src/transformers/models/rag/modeling_rag.py, RagTokenForGeneration.get_nll:
`if pad_mask.any(): ll.masked_fill_(pad_mask, 0.0)`). With an all-False mask the fill
changes no value, but it still bumps the tensor's version counter: when the caller saved
the input for backward (`loss = (w * ll).sum()` before the call), its `backward()` raises
"modified by an inplace operation" where the original, which skipped the fill, does not.
Compiled, an input mutated in the graph is written back whatever the mask, so the guard may
be dropped only for tensors the traced code created itself, which a parameter is not."""
import torch


def ENTRY(ll: torch.Tensor, target: torch.Tensor):
    pad_mask = target.eq(0)
    if pad_mask.any():
        ll.masked_fill_(pad_mask, 0.0)
    return ll.sum(-1)


INPUTS = [
    (torch.randn(2, 4), torch.tensor([[3, 2, 0, 0], [1, 4, 5, 2]])),
    (torch.randn(2, 4), torch.tensor([[3, 2, 1, 1], [1, 4, 5, 2]])),
]
EXPECTED_BREAKS = (1, 1)
EXPECTED_GRAPHS = (2, 2)
EXPECTED_TAGS = [("GM101", "declined")]
EXPECTED_DECLINES = [("GM101", "may not be one the traced code created")]
