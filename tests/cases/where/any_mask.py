"""[Where] `torch.any(mask)` guarding a masked_fill (padding handling)."""
import torch


def ENTRY(scores: torch.Tensor, attention_mask: torch.Tensor):
    mask = attention_mask == 0
    if torch.any(mask):
        scores = scores.masked_fill(mask, -1e4)
    return torch.softmax(scores, dim=-1)


INPUTS = [
    (torch.tensor([[0.5, 1.0, 2.0]]), torch.tensor([[1, 1, 0]])),
    (torch.tensor([[0.5, 1.0, 2.0]]), torch.tensor([[1, 1, 1]])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "where")]
