"""[Defer] a deferred branch whose run-time check refuses: transformers' generation code
turns the special token ids into tensors (huggingface/transformers:
src/transformers/generation/utils.py, `_prepare_special_tokens`), and
`warn_if_padding_and_no_attention_mask` (src/transformers/modeling_utils.py) then formats a
tensor `pad_token_id` into its message. Formatting a tensor while tracing is not static, so
`runtime.defer_branch` is false and the `if` tests the condition as written: Dynamo breaks
there and at the f-string (the original's `in` made it run the whole frame eagerly), and the
output is the original's. With a plain int id (the first input, whose breaks are counted)
the branch is deferred: one graph where Dynamo ran the original's whole frame eagerly."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Config:
    def __init__(self, pad_token_id):
        self.pad_token_id = pad_token_id
        self.bos_token_id = 1


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = nn.Embedding(10, 4)

    def forward(self, input_ids, config):
        embedding_output = self.embeddings(input_ids)
        if config.pad_token_id in input_ids[:, [-1, 0]]:
            warn_string = "We strongly recommend passing in an `attention_mask` since your input_ids may be padded."
            if config.bos_token_id is not None and config.bos_token_id == config.pad_token_id:
                warn_string += f"\nYou may ignore this warning if your `pad_token_id` ({config.pad_token_id}) is identical"
            logger.warning(warn_string)
        return embedding_output.sum(1)


INPUTS = [
    (torch.tensor([[1, 5, 6, 0], [1, 7, 8, 9]]), Config(1)),
    (torch.tensor([[1, 5, 6, 0], [1, 7, 8, 9]]), Config(torch.tensor(1))),
    (torch.tensor([[2, 5, 6, 3], [2, 7, 8, 9]]), Config(1)),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (0, 1)
EXPECTED_TAGS = [("GM101", "defer"), ("GM103", "defer")]
