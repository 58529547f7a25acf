"""[Defer] a branch deferred whole: transformers' `PreTrainedModel.warn_if_padding_and_no_attention_mask`
(huggingface/transformers: src/transformers/modeling_utils.py). `pad_token_id in input_ids[:, [-1, 0]]`
(Tensor.__contains__, a `.item()` break) guards a body that builds the message from config values
with static ifs and logs it. Here the padding token is also the BOS token, so the static if holds
and the message formats config values; the peer program (tests/peer/transformers) covers the
other side."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Config:
    pad_token_id = 1
    bos_token_id = 1
    eos_token_id = 2
    sep_token_id = None


class ENTRY(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = Config()
        self.embeddings = nn.Embedding(10, 4)

    def warn_if_padding_and_no_attention_mask(self, input_ids, attention_mask):
        if (attention_mask is not None) or (self.config.pad_token_id is None):
            return

        # Check only the first and last input IDs to reduce overhead.
        if self.config.pad_token_id in input_ids[:, [-1, 0]]:
            warn_string = (
                "We strongly recommend passing in an `attention_mask` since your input_ids may be padded. See "
                "https://huggingface.co/docs/transformers/troubleshooting"
                "#incorrect-output-when-padding-tokens-arent-masked."
            )
            sep_token_id = getattr(self.config, "sep_token_id", None)
            if (
                (self.config.bos_token_id is not None and self.config.bos_token_id == self.config.pad_token_id)
                or (self.config.eos_token_id is not None and self.config.eos_token_id == self.config.pad_token_id)
                or (sep_token_id is not None and sep_token_id == self.config.pad_token_id)
            ):
                warn_string += (
                    f"\nYou may ignore this warning if your `pad_token_id` ({self.config.pad_token_id}) is identical "
                    f"to the `bos_token_id` ({self.config.bos_token_id}), `eos_token_id` ({self.config.eos_token_id}), "
                    f"or the `sep_token_id` ({sep_token_id}), and your input is not padded."
                )
            logger.warning(warn_string)

    def forward(self, input_ids, attention_mask=None):
        embedding_output = self.embeddings(input_ids)
        self.warn_if_padding_and_no_attention_mask(input_ids, attention_mask)
        if attention_mask is not None:
            embedding_output = embedding_output * attention_mask[..., None]
        return embedding_output.sum(1)


INPUTS = [
    (torch.tensor([[1, 5, 6, 4], [2, 7, 8, 9]]),),
    (torch.tensor([[3, 5, 6, 4], [2, 7, 8, 9]]),),
    (torch.tensor([[1, 5, 6, 0]]), torch.tensor([[1.0, 1.0, 1.0, 0.0]])),
]
EXPECTED_BREAKS = (1, 0)
EXPECTED_GRAPHS = (2, 1)
EXPECTED_TAGS = [("GM101", "defer"), ("GM103", "defer")]
