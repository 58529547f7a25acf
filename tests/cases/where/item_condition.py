"""[Where] a condition comparing `.item()` with a number (the padding test of transformers'
`LSHSelfAttention._hash_vectors`, src/transformers/models/reformer/modeling_reformer.py,
compares `attention_mask.sum().item()` with a count): compared in the graph by
`runtime.item_compare`, exactly as Python compares the scalar; the GM106 site goes with it."""
import torch


def ENTRY(x: torch.Tensor, mask, limit=1):
    y = x
    if x.sum().item() > 0:
        y = x * 2
    if mask.sum().item() < limit:
        y = y - 1
    return y


INPUTS = [
    (torch.ones(2), torch.tensor([0, 1])),
    (-torch.ones(2), torch.tensor([0, 0])),
    (torch.ones(2), torch.tensor([1, 1]), 2.5),
    (torch.tensor([0.1, 0.2], dtype=torch.float64), torch.tensor([1, 0]), 3),
]
EXPECTED_BREAKS = (2, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM101", "where"), ("GM106", "where"), ("GM106", "where")]
EXPECTED_DECLINES = []

torch.compile(ENTRY)  # traced: an entry point of the mender
