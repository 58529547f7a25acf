"""OpenRLHF's PPO trainer step statistics: before the experiences are balanced across
data-parallel ranks, `_compute_rollout_stats` concatenates the rewards of the experiences that
carry one (`info["reward"]`), their response lengths and truncation flags, and reports the
reward mean, the reward standard deviation (0.0 for a single sample, tested with
`len(all_rewards) > 1`), the mean response length and the truncation rate, each read back
with `.item()` into the step's status dict of Python floats. Python values computed from tensor
data: not fixable by design. The trainer is reduced to the method; an experience is a small
stand-in for OpenRLHF's Experience (info, response_length, truncated)."""

from dataclasses import dataclass, field
from typing import Dict

import torch

ORIGIN = "OpenRLHF/OpenRLHF: openrlhf/trainer/ppo_trainer.py: BasePPOTrainer._compute_rollout_stats"
CATEGORY = "out_of_scope"


@dataclass
class Experience:
    response_length: torch.Tensor = None
    truncated: torch.Tensor = None
    info: dict = field(default_factory=dict)


class BasePPOTrainer:
    def _compute_rollout_stats(self, experiences) -> Dict:
        """Compute ground-truth rollout statistics before dynamic batch splitting."""
        all_rewards = torch.cat([exp.info["reward"] for exp in experiences if "reward" in exp.info])
        all_response_lengths = torch.cat(
            [exp.response_length for exp in experiences if exp.response_length is not None]
        )
        all_truncated = torch.cat([exp.truncated for exp in experiences if exp.truncated is not None])

        stats = {
            "rollout/reward_mean": all_rewards.float().mean().item(),
            "rollout/reward_std": all_rewards.float().std().item() if len(all_rewards) > 1 else 0.0,
            "rollout/response_length_mean": all_response_lengths.float().mean().item(),
            "rollout/truncated_rate": all_truncated.float().mean().item(),
            "rollout/num_samples": float(len(all_rewards)),
        }
        return stats


TRAINER = BasePPOTrainer()


def rollout_stats(rewards, response_lengths, truncated, sizes, rewarded):
    """Splits the rollout into experiences of `sizes` samples; those not `rewarded` carry no
    reward in their info, and the last one's lengths and flags are unknown when it has none."""
    experiences, start = [], 0
    for k, (size, has_reward) in enumerate(zip(sizes, rewarded)):
        info = {"response_clip_ratio": truncated[start : start + size]}
        if has_reward:
            info["reward"] = rewards[start : start + size]
        known = k < len(sizes) - 1 or has_reward
        experiences.append(Experience(
            response_length=response_lengths[start : start + size] if known else None,
            truncated=truncated[start : start + size] if known else None,
            info=info,
        ))
        start += size
    return TRAINER._compute_rollout_stats(experiences)


ENTRY = rollout_stats
torch.manual_seed(0)
INPUTS = [
    (torch.rand(6), torch.randint(1, 16, (6,)), torch.rand(6) > 0.5, [2, 2, 2], [True, True, True]),
    # the last experience has no reward (nor lengths): left out of every statistic
    (torch.rand(5), torch.randint(1, 16, (5,)), torch.rand(5) > 0.5, [2, 3], [True, False]),
    # a single rewarded sample: the standard deviation is 0.0
    (torch.rand(3), torch.randint(1, 16, (3,)), torch.rand(3) > 0.5, [1, 2], [True, False]),
]
