"""[Where] a branch that logs and assigns, from huggingface/transformers:
src/transformers/models/paligemma/modeling_paligemma.py:
PaliGemmaForConditionalGeneration.forward (4.44: `if labels is not None and
self.pad_token_id in labels: logger.warning_once(...); labels = torch.where(...)`; here
`logger.warning`, the peer program keeps `warning_once`). The assignment is predicated; the
warning is recorded with the branch's condition (`runtime.defer_when`) and replayed after the
compiled call only if it held, so the log is the original's. Predicated only while
compiling: eagerly, and wherever the check fails, the original branch runs, its call
recorded as [Defer] records it (made at once eagerly). The original gives up the whole frame
(the break is inside Tensor.__contains__)."""

import logging
from typing import Optional

import torch
from torch import nn

logger = logging.getLogger(__name__)


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(8, 4)
        self.pad_token_id = 0
        self.ignore_index = -100

    def forward(self, input_ids: torch.LongTensor, labels: Optional[torch.LongTensor] = None):
        inputs_embeds = self.embed_tokens(input_ids)
        if labels is not None and self.pad_token_id in labels:
            logger.warning(
                "`labels` contains `pad_token_id` which will be masked with `config.ignore_index`."
            )
            labels = torch.where(input_ids == self.pad_token_id, self.ignore_index, labels)
        return inputs_embeds.sum(-1), labels


INPUTS = [
    (torch.tensor([[3, 0, 5, 0]]), torch.tensor([[3, 0, 5, 0]])),
    (torch.tensor([[3, 1, 5, 2]]), torch.tensor([[3, 1, 5, 2]])),
    (torch.tensor([[3, 1, 5, 2]]),),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM101", "where"), ("GM103", "where")]
