"""[Where] checked: a branch on `v in tensor` where the tensor is a parameter annotated
`Optional[torch.LongTensor]`, from huggingface/transformers:
src/transformers/models/paligemma/modeling_paligemma.py:
PaliGemmaForConditionalGeneration.forward (4.44: `if labels is not None and
self.pad_token_id in labels: ... labels = torch.where(input_ids == self.pad_token_id,
self.config.ignore_index, labels)`; the warning it logs first is left out here, the peer
program keeps it). `Tensor.__contains__` converts `(v == t).any()` with `.item()`: a break.
The annotation is evidence that `labels` is a tensor or None, so the branch is tagged; the
rewrite keeps `labels is not None` as a Python `if`, checks `runtime.tensors(labels)` and
lowers the membership to `runtime.contains(v, labels)`, the bool tensor while compiling."""

from typing import Optional

import torch
from torch import nn


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(8, 4)
        self.pad_token_id = 0
        self.ignore_index = -100

    def forward(self, input_ids: torch.LongTensor, labels: Optional[torch.LongTensor] = None):
        inputs_embeds = self.embed_tokens(input_ids)
        if labels is not None and self.pad_token_id in labels:
            labels = torch.where(input_ids == self.pad_token_id, self.ignore_index, labels)
        return inputs_embeds.sum(-1), labels


INPUTS = [
    (torch.tensor([[3, 0, 5, 0]]), torch.tensor([[3, 0, 5, 0]])),
    (torch.tensor([[3, 1, 5, 2]]), torch.tensor([[3, 1, 5, 2]])),
    (torch.tensor([[3, 1, 5, 2]]),),
]
# Dynamo gives up on the original's whole frame (the break is inside Tensor.__contains__)
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM101", "where")]
