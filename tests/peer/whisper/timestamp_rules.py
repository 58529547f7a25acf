"""Whisper's ApplyTimestampRules.apply: a logit filter that reads each sequence's sampled
tokens as a Python list (`sampled_tokens.tolist()`) to decide whether timestamps must pair
up, picks the timestamps with a boolean mask (`sampled_tokens[sampled_tokens.ge(...)]`)
and branches on their count, suppresses text at the start and past the initial timestamp
limit, and finally branches on tensor values (`if timestamp_logprob >
max_text_token_logprob:`) to force a timestamp. The tokenizer is a stand-in with the ids
the filter reads."""

from typing import Optional

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

ORIGIN = "openai/whisper: whisper/decoding.py: ApplyTimestampRules.apply"
CATEGORY = "out_of_scope"


class Tokenizer:
    eot = 6
    no_timestamps = 7
    timestamp_begin = 8


class LogitFilter:
    def apply(self, logits: Tensor, tokens: Tensor) -> None:
        raise NotImplementedError


class ApplyTimestampRules(LogitFilter):
    def __init__(
        self,
        tokenizer: Tokenizer,
        sample_begin: int,
        max_initial_timestamp_index: Optional[int],
    ):
        self.tokenizer = tokenizer
        self.sample_begin = sample_begin
        self.max_initial_timestamp_index = max_initial_timestamp_index

    def apply(self, logits: Tensor, tokens: Tensor):
        # suppress <|notimestamps|> which is handled by without_timestamps
        if self.tokenizer.no_timestamps is not None:
            logits[:, self.tokenizer.no_timestamps] = -np.inf

        # timestamps have to appear in pairs, except directly before EOT; mask logits accordingly
        for k in range(tokens.shape[0]):
            sampled_tokens = tokens[k, self.sample_begin :]
            seq = [t for t in sampled_tokens.tolist()]
            last_was_timestamp = (
                len(seq) >= 1 and seq[-1] >= self.tokenizer.timestamp_begin
            )
            penultimate_was_timestamp = (
                len(seq) < 2 or seq[-2] >= self.tokenizer.timestamp_begin
            )

            if last_was_timestamp:
                if penultimate_was_timestamp:  # has to be non-timestamp
                    logits[k, self.tokenizer.timestamp_begin :] = -np.inf
                else:  # cannot be normal text tokens
                    logits[k, : self.tokenizer.eot] = -np.inf

            timestamps = sampled_tokens[
                sampled_tokens.ge(self.tokenizer.timestamp_begin)
            ]
            if timestamps.numel() > 0:
                # timestamps shouldn't decrease; forbid timestamp tokens smaller than the last
                # also force each segment to have a nonzero length, to prevent infinite looping
                if last_was_timestamp and not penultimate_was_timestamp:
                    timestamp_last = timestamps[-1]
                else:
                    timestamp_last = timestamps[-1] + 1
                logits[k, self.tokenizer.timestamp_begin : timestamp_last] = -np.inf

        if tokens.shape[1] == self.sample_begin:
            # suppress generating non-timestamp tokens at the beginning
            logits[:, : self.tokenizer.timestamp_begin] = -np.inf

            # apply the `max_initial_timestamp` option
            if self.max_initial_timestamp_index is not None:
                last_allowed = (
                    self.tokenizer.timestamp_begin + self.max_initial_timestamp_index
                )
                logits[:, last_allowed + 1 :] = -np.inf

        # if sum of probability over timestamps is above any other token, sample timestamp
        logprobs = F.log_softmax(logits.float(), dim=-1)
        for k in range(tokens.shape[0]):
            timestamp_logprob = logprobs[k, self.tokenizer.timestamp_begin :].logsumexp(
                dim=-1
            )
            max_text_token_logprob = logprobs[k, : self.tokenizer.timestamp_begin].max()
            if timestamp_logprob > max_text_token_logprob:
                logits[k, : self.tokenizer.timestamp_begin] = -np.inf


class Filtering(nn.Module):
    def __init__(self):
        super().__init__()
        self.rules = ApplyTimestampRules(Tokenizer(), sample_begin=2, max_initial_timestamp_index=2)

    def forward(self, logits, tokens):
        logits = logits * 1.0
        self.rules.apply(logits, tokens)
        return logits


def _timestamps_likely(n):
    logits = torch.randn(n, 14)
    logits[:, 8:] += 3.0
    return logits


ENTRY = Filtering
torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 14), torch.tensor([[0, 1, 3, 9], [0, 1, 9, 10], [0, 1, 3, 2]])),
    (_timestamps_likely(2), torch.tensor([[0, 1, 2, 9], [0, 1, 4, 5]])),
    (torch.randn(2, 14), torch.tensor([[0, 1], [0, 1]])),
]
