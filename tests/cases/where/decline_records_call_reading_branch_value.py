"""[Where] declined: a branch that logs a value it assigns, a variant of
huggingface/transformers' PaliGemmaForConditionalGeneration.forward (4.44) whose warning
formats the masked labels. A recorded call's arguments are evaluated whatever the
condition, before the predicated assignment, so they must not read what the branch assigns:
the branch keeps its break (and the warning is deferred on its own)."""

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
        if labels is not None and (labels == self.pad_token_id).any():
            labels = torch.where(input_ids == self.pad_token_id, self.ignore_index, labels)
            logger.warning("masked labels: %s", labels)
        return inputs_embeds.sum(-1), labels


INPUTS = [
    (torch.tensor([[3, 0, 5, 0]]), torch.tensor([[3, 0, 5, 0]])),
    (torch.tensor([[3, 1, 5, 2]]), torch.tensor([[3, 1, 5, 2]])),
]
EXPECTED_BREAKS = (3, 1)
EXPECTED_GRAPHS = (3, 2)
EXPECTED_TAGS = [("GM101", "declined"), ("GM103", "defer")]
EXPECTED_DECLINES = [("GM101", "which the branch assigns")]
