"""OpenRLHF's pass@k evaluation metrics, shared by the synchronous and asynchronous PPO
trainers: the eval dataloader maps each prompt to its data source; each generated sample's
response length and truncation flag are read with `.item()` (or kept as None), the rewards are
stacked into [prompts, n_samples_per_prompt], and per data source `pass{n}` accumulates
`chunk.max().float().item()` (when n > 1) and `pass1` accumulates `chunk.mean().float().item()`;
the logs are Python floats averaged over the prompts, with the response-length mean and the
truncation rate where known. Python values computed from tensor data, returned as a dict of
floats: not fixable by design. A sample is a small stand-in for OpenRLHF's Experience (its
prompts, rewards [1], response_length [1] and truncated [1]); the eval dataloader is a list of
collated batches (datasources, prompts, labels, images)."""

from dataclasses import dataclass, field

import torch

ORIGIN = "OpenRLHF/OpenRLHF: openrlhf/trainer/ppo_trainer.py: compute_eval_metrics"
CATEGORY = "out_of_scope"


@dataclass
class Experience:
    rewards: torch.Tensor = None
    response_length: torch.Tensor = None
    truncated: torch.Tensor = None
    prompts: list = field(default_factory=list)


def compute_eval_metrics(eval_dataloader, samples_list, n_samples_per_prompt):
    """Compute pass@k eval metrics from generated samples.

    Shared by both sync and async evaluation paths.
    """
    if not samples_list:
        return {}

    prompt_to_datasource = {}
    for datasources, prompts, labels, _images in eval_dataloader:
        for prompt, datasource in zip(prompts, datasources):
            prompt_to_datasource[prompt] = datasource

    # Single pass: collect prompts, rewards, response_length, truncated
    all_prompts = []
    all_rewards = []
    all_response_lengths = []
    all_truncated = []
    for s in samples_list:
        all_prompts.extend(s.prompts)
        all_rewards.append(s.rewards)
        all_response_lengths.append(s.response_length.item() if s.response_length is not None else None)
        all_truncated.append(s.truncated.item() if s.truncated is not None else None)

    rewards = torch.tensor(all_rewards).reshape(-1, n_samples_per_prompt)

    metrics = {}
    for i in range(len(all_prompts) // n_samples_per_prompt):
        ds = prompt_to_datasource.get(all_prompts[i * n_samples_per_prompt], "unknown")
        if ds not in metrics:
            metrics[ds] = {f"pass{n_samples_per_prompt}": 0, "pass1": 0, "count": 0, "lengths": [], "truncated": []}
        chunk = rewards[i]
        if n_samples_per_prompt > 1:
            metrics[ds][f"pass{n_samples_per_prompt}"] += chunk.max().float().item()
        metrics[ds]["pass1"] += chunk.mean().float().item()
        metrics[ds]["count"] += 1

        start = i * n_samples_per_prompt
        for j in range(start, start + n_samples_per_prompt):
            if all_response_lengths[j] is not None:
                metrics[ds]["lengths"].append(all_response_lengths[j])
            if all_truncated[j] is not None:
                metrics[ds]["truncated"].append(all_truncated[j])

    logs = {}
    total_lengths = []
    total_truncated = []
    for ds, m in metrics.items():
        logs[f"eval_{ds}_pass{n_samples_per_prompt}"] = m[f"pass{n_samples_per_prompt}"] / m["count"]
        logs[f"eval_{ds}_pass1"] = m["pass1"] / m["count"]
        if m["lengths"]:
            logs[f"eval_{ds}_response_length_mean"] = sum(m["lengths"]) / len(m["lengths"])
            total_lengths.extend(m["lengths"])
        if m["truncated"]:
            logs[f"eval_{ds}_truncated_rate"] = sum(m["truncated"]) / len(m["truncated"])
            total_truncated.extend(m["truncated"])

    if total_lengths:
        logs["eval_response_length_mean"] = sum(total_lengths) / len(total_lengths)
    if total_truncated:
        logs["eval_truncated_rate"] = sum(total_truncated) / len(total_truncated)
    logs["eval_num_samples"] = float(len(all_prompts))

    return logs


def evaluate(rewards, response_lengths, truncated, prompts, datasources, n_samples_per_prompt):
    # the eval dataloader: one collated batch per two prompts
    eval_dataloader = [
        (datasources[i : i + 2], prompts[i : i + 2], [""] * len(prompts[i : i + 2]), [None] * len(prompts[i : i + 2]))
        for i in range(0, len(prompts), 2)
    ]
    samples_list = [
        Experience(
            rewards=rewards[k : k + 1],
            response_length=response_lengths[k : k + 1] if response_lengths is not None else None,
            truncated=truncated[k : k + 1] if truncated is not None else None,
            prompts=[prompts[k // n_samples_per_prompt]],
        )
        for k in range(len(rewards))
    ]
    return compute_eval_metrics(eval_dataloader, samples_list, n_samples_per_prompt)


ENTRY = evaluate
torch.manual_seed(0)
INPUTS = [
    # three prompts (two data sources) with two samples each
    ((torch.rand(6) > 0.5).float(), torch.randint(1, 9, (6,)), torch.rand(6) > 0.7,
     ["p0", "p1", "p2"], ["math", "code", "math"], 2),
    # one sample per prompt, lengths and truncation unknown; "p9" has no data source
    (torch.rand(3), None, None, ["p0", "p1", "p9"], ["math", "code"], 1),
    # nothing generated
    (torch.zeros(0), None, None, [], [], 2),
]
