"""OpenRLHF's PPO experience maker, `compute_advantages_and_returns`: after the length
penalties, the rewards of all micro-batches are put back in prompt order, grouped by
`n_samples_per_prompt` (their per-group std kept in `info`), shaped by the estimator's baseline
(RLOO leave-one-out, mean subtraction, group normalisation), turned into per-token rewards
(`compute_reward`: the KL penalty plus the reward on the last action token) and then into GAE
advantages and returns or REINFORCE cumulative returns; with rloo/reinforce_baseline/
group_norm/dr_grpo a discount other than 1 is reset with `logger.warning("gamma is set to 1.0
...")`, an unknown estimator raises, and gae/reinforce/reinforce_baseline advantages are
whitened over all action tokens. The Ray experience maker keeps its strategy's args, the KL
controller and the methods; the object under test is its `make_experience_batch`, a stand-in
(the remote model forwards left out) that configures the step and calls
`self.compute_advantages_and_returns`. The length penalties are off in these configs (only the
sync of `info["reward"]` runs; the overlong penalty has its own program). The `logger.warning`
inside the loop over the experiences breaks plain torch.compile."""

import itertools
import logging

import torch

ORIGIN = "OpenRLHF/OpenRLHF: openrlhf/trainer/ppo_utils/experience_maker.py: RemoteExperienceMaker.compute_advantages_and_returns"
CATEGORY = "defer"

logger = logging.getLogger(__name__)


class NS:  # the args' sections, the strategy, the KL controller, an experience
    def __init__(self, **fields):
        for name, value in fields.items():
            setattr(self, name, value)


def _micro_batch(rewards, kl, action_mask, values, rows):
    return NS(action_mask=action_mask[rows], values=values[rows], kl=kl[rows], rewards=rewards[rows],
              index=rows, info={"reward": rewards[rows]})


def apply_length_penalties(experiences, args) -> None:
    # (the penalties are off) Sync info["reward"] with the modified rewards
    for experience in experiences:
        if "reward" in experience.info:
            experience.info["reward"] = experience.rewards.clone()


def compute_reward(r, kl_coef, kl, action_mask=None, reward_clip_range=None):
    if kl_coef <= 0.0:
        kl_coef = 0.0
    if reward_clip_range:
        r = r.clamp(min=reward_clip_range[0], max=reward_clip_range[1])
    kl_reward = -kl_coef * kl
    # the reward on the last action token
    eos_indices = action_mask.size(1) - 1 - action_mask.long().fliplr().argmax(dim=1, keepdim=True)
    last_reward = torch.zeros_like(kl).scatter_(dim=1, index=eos_indices, src=r.unsqueeze(1).to(kl.dtype))
    return last_reward + kl_reward


class RemoteExperienceMaker:
    def __init__(self, kl_controller, strategy):
        self.strategy = strategy
        self.args = strategy.args
        self.advantage_estimator = strategy.args.algo.advantage.estimator
        self.kl_ctl = kl_controller

    @torch.no_grad()
    def make_experience_batch(self, rewards, kl, action_mask, values, estimator, gamma, n_samples_per_prompt, no_std_norm):
        # the step's configuration; two micro-batches, out of prompt order (samples 2, 0 and 1, 3)
        args = self.strategy.args
        args.rollout.n_samples_per_prompt = n_samples_per_prompt
        args.algo.advantage.estimator = self.advantage_estimator = estimator
        args.algo.advantage.gamma, args.algo.advantage.no_std_norm = gamma, no_std_norm
        experiences = [_micro_batch(rewards, kl, action_mask, values, [2, 0]),
                       _micro_batch(rewards, kl, action_mask, values, [1, 3])]
        experiences = self.compute_advantages_and_returns(experiences)
        return [(e.advantages, e.returns, e.info) for e in experiences], args.algo.advantage.gamma

    @torch.no_grad()
    def compute_advantages_and_returns(self, experiences):
        """Compute shaped rewards, advantages, and returns for a batch of experiences."""
        args = self.strategy.args
        apply_length_penalties(experiences, args)
        exp_len = [len(experience.index) for experience in experiences]
        indices = torch.tensor(list(itertools.chain.from_iterable(experience.index for experience in experiences)))
        raw_rewards = torch.cat([experience.rewards for experience in experiences], dim=0)
        rewards = torch.empty_like(raw_rewards)
        rewards[indices] = raw_rewards  # sorted by original prompt order
        rewards = rewards.reshape(-1, args.rollout.n_samples_per_prompt)
        if args.rollout.n_samples_per_prompt > 1:
            group_reward_stds = rewards.std(-1, keepdim=True).repeat(1, args.rollout.n_samples_per_prompt)
            group_reward_stds = group_reward_stds.reshape(-1)[indices].split(exp_len)
            for experience, group_reward_std in zip(experiences, group_reward_stds):
                experience.info["group_reward_std"] = group_reward_std
        if args.algo.advantage.estimator == "rloo":
            baseline = (rewards.sum(-1, keepdim=True) - rewards) / (args.rollout.n_samples_per_prompt - 1)
            rewards = rewards - baseline
        elif args.algo.advantage.estimator in ["reinforce_baseline", "dr_grpo"]:
            rewards = rewards - rewards.mean(-1, keepdim=True)
        elif args.algo.advantage.estimator == "group_norm":
            rewards = (rewards - rewards.mean(-1, keepdim=True)) / (rewards.std(-1, keepdim=True) + 1e-9)
        rewards = rewards.reshape(-1)[indices].split(exp_len)
        for experience, reward in zip(experiences, rewards):
            reward = compute_reward(reward, self.kl_ctl.value, experience.kl, action_mask=experience.action_mask,
                                    reward_clip_range=args.reward.clip_range)
            if self.advantage_estimator == "gae":
                experience.advantages, experience.returns = self.get_advantages_and_returns(
                    experience.values, reward, experience.action_mask, args.algo.advantage.gamma, args.algo.advantage.lambd)
            elif self.advantage_estimator in ["reinforce", "rloo", "reinforce_baseline", "group_norm", "dr_grpo"]:
                if args.algo.advantage.gamma != 1.0 and self.advantage_estimator in [
                        "rloo", "reinforce_baseline", "group_norm", "dr_grpo"]:
                    logger.warning("gamma is set to 1.0 for rloo, reinforce_baseline, and group_norm")
                    args.algo.advantage.gamma = 1.0
                experience.returns = self.get_cumulative_returns(reward, experience.action_mask, args.algo.advantage.gamma)
                experience.advantages = experience.returns.clone()
            else:
                raise Exception(f"Unkown advantage_estimator {self.advantage_estimator}")
            experience.info["return"] = reward.sum(dim=-1)
            experience.kl = None
        if args.algo.advantage.estimator in ["gae", "reinforce", "reinforce_baseline"]:
            all_advantages = torch.cat([exp.advantages.flatten() for exp in experiences], dim=0).float()
            all_action_masks = torch.cat([exp.action_mask.flatten() for exp in experiences], dim=0)
            num_actions = all_action_masks.sum()
            mean = (all_advantages * all_action_masks).sum() / num_actions
            if not args.algo.advantage.no_std_norm:
                var = ((all_advantages - mean).pow(2) * all_action_masks).sum() / num_actions
                rstd = var.clamp(min=1e-8).rsqrt()
            else:
                rstd = 1
            for exp in experiences:
                exp.advantages = (exp.advantages - mean) * rstd
        return experiences

    @torch.no_grad()
    def get_advantages_and_returns(self, values, rewards, action_mask, gamma, lambd):
        lastgaelam = 0
        advantages_reversed = []
        response_length = rewards.size(1)
        if action_mask is not None:
            values = action_mask * values
            rewards = action_mask * rewards
        for t in reversed(range(response_length)):
            nextvalues = values[:, t + 1] if t < response_length - 1 else 0.0
            delta = rewards[:, t] + gamma * nextvalues - values[:, t]
            lastgaelam = delta + gamma * lambd * lastgaelam
            advantages_reversed.append(lastgaelam)
        advantages = torch.stack(advantages_reversed[::-1], dim=1)
        return advantages.detach(), advantages + values

    @torch.no_grad()
    def get_cumulative_returns(self, rewards, action_mask, gamma):
        response_length = rewards.size(1)
        returns = torch.zeros_like(rewards)
        cumulative_return = torch.zeros(rewards.size(0), device=rewards.device)
        if action_mask is not None:
            rewards = action_mask * rewards
        for t in reversed(range(response_length)):
            cumulative_return = rewards[:, t] + gamma * cumulative_return
            returns[:, t] = cumulative_return
        return returns


def make():
    """The maker's step: its stand-in for `make_experience_batch` (the remote forwards left out)."""
    args = NS(rollout=NS(n_samples_per_prompt=1), reward=NS(clip_range=(-1.0, 1.0)),
              algo=NS(advantage=NS(estimator=None, gamma=1.0, lambd=0.95, no_std_norm=False)))
    return RemoteExperienceMaker(NS(value=0.1), NS(args=args)).make_experience_batch


def _case(*config):  # rewards, kl, action_mask, values; the step's configuration
    mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 0, 0, 0]])
    return (torch.randn(4), 0.1 * torch.randn(4, 4), mask, torch.randn(4, 4)) + config


ENTRY = RemoteExperienceMaker.make_experience_batch
torch.manual_seed(0)
INPUTS = [_case("group_norm", 0.9, 2, False), _case("gae", 0.99, 1, False), _case("rloo", 1.0, 2, False),
          _case("reinforce_baseline", 0.99, 4, False), _case("reinforce", 0.9, 2, True),
          _case("dr_grpo", 1.0, 2, False), _case("ppo", 1.0, 2, False)]
