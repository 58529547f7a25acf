"""OpenRLHF's DAPO overlong penalty, applied to the experiences before the advantages are
computed: after asserting `max_new_tokens >= overlong_buffer_len` (with its message), each
sample's response length is read with `.item()`, the excess over
`max_new_tokens - overlong_buffer_len` is capped at the buffer, and a positive excess subtracts
`exceed_len / overlong_buffer_len * overlong_penalty_factor` from that sample's reward in place
and counts it; the number penalised is returned as a Python int. Python values and control
flow from tensor data (the `.item()` feeds `min` and the `if exceed_len > 0`, and the count is
returned): not fixable by design. An experience is a small stand-in for OpenRLHF's Experience
(rewards, response_length)."""

from dataclasses import dataclass
from typing import List

import torch

ORIGIN = "OpenRLHF/OpenRLHF: openrlhf/trainer/ppo_utils/length_penalty.py: apply_overlong_penalty"
CATEGORY = "out_of_scope"


@dataclass
class Experience:
    rewards: torch.Tensor
    response_length: torch.Tensor


def apply_overlong_penalty(
    experiences: List,
    max_new_tokens: int,
    overlong_buffer_len: float,
    overlong_penalty_factor: float = 1.0,
) -> int:
    """
    DAPO-style overlong penalty based on response length.

    Penalizes responses that exceed (max_new_tokens - overlong_buffer_len).
    Formula: penalty = -min(exceed_len, buffer_len) / buffer_len * penalty_factor
    """
    assert (
        max_new_tokens >= overlong_buffer_len
    ), f"max_new_tokens ({max_new_tokens}) must be >= overlong_buffer_len ({overlong_buffer_len})"

    expected_len = max_new_tokens - overlong_buffer_len
    total_penalized = 0

    for experience in experiences:
        response_lengths = experience.response_length
        batch_size = len(response_lengths)

        for j in range(batch_size):
            valid_response_length = response_lengths[j].item()
            # Cap the exceed_len to overlong_buffer_len to prevent excessive penalty
            exceed_len = min(valid_response_length - expected_len, overlong_buffer_len)

            if exceed_len > 0:
                overlong_penalty = -exceed_len / overlong_buffer_len * overlong_penalty_factor
                experience.rewards[j] += overlong_penalty
                total_penalized += 1

    return total_penalized


def penalize(rewards, response_lengths, max_new_tokens, overlong_buffer_len, overlong_penalty_factor):
    """Two micro-batches of the rollout; returns the count and the penalised rewards."""
    experiences = [Experience(rewards[i : i + 2], response_lengths[i : i + 2]) for i in range(0, len(rewards), 2)]
    num_penalized = apply_overlong_penalty(
        experiences=experiences,
        max_new_tokens=max_new_tokens,
        overlong_buffer_len=overlong_buffer_len,
        overlong_penalty_factor=overlong_penalty_factor,
    )
    return num_penalized, torch.cat([e.rewards for e in experiences])


ENTRY = penalize
torch.manual_seed(0)
INPUTS = [
    # lengths past 16 - 4 = 12 are penalised, those past 16 by the whole factor
    (torch.rand(4), torch.tensor([5, 13, 16, 20]), 16, 4, 1.0),
    (torch.rand(4), torch.tensor([3, 7, 9, 11]), 16, 4, 0.5),
    # the buffer is longer than the generation: the assert fails
    (torch.rand(4), torch.tensor([5, 13, 16, 20]), 8, 12, 1.0),
]
