"""TRL's A*-PO trainer loss: the policy's sequence log-probabilities (a causal LM's logits
for the completion, `selective_log_softmax`, summed under the mask) give the implicit reward
`beta2 * (policy_logps - ref_logps)`, regressed onto `rewards - v_star`; the batch means of
the implicit reward and of the target are logged with `.item()` into the trainer's metric
lists: Python state computed from tensor data. Not fixable by design."""

from collections import defaultdict

import torch
from torch import nn

ORIGIN = "huggingface/trl: trl/experimental/a2po/a2po_trainer.py: A2POTrainer.compute_loss"
CATEGORY = "out_of_scope"


def selective_log_softmax(logits, index):
    squeeze = index.ndim == logits.ndim - 1
    if squeeze:
        index = index.unsqueeze(-1)
    selected_logits = torch.gather(logits, dim=-1, index=index)
    logsumexp_values = torch.stack([torch.logsumexp(lg, dim=-1) for lg in logits])
    per_token_logps = selected_logits - logsumexp_values.unsqueeze(-1)
    if squeeze:
        per_token_logps = per_token_logps.squeeze(-1)
    return per_token_logps


class Output:
    def __init__(self, logits):
        self.logits = logits


class TinyCausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(11, 6)
        self.head = nn.Linear(6, 11)

    def forward(self, input_ids, attention_mask):
        hidden = self.embed(input_ids) * attention_mask.unsqueeze(-1)
        return Output(self.head(hidden))


class Args:
    beta2 = 0.5


class A2POTrainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = TinyCausalLM()
        self.args = Args()
        self.model_kwarg_keys = ["input_ids", "attention_mask"]
        self._metrics = {"train": defaultdict(list), "eval": defaultdict(list)}

    def _get_sequence_logps(self, model, input_ids, attention_mask, logits_to_keep):
        model_inputs = {"input_ids": input_ids, "attention_mask": attention_mask}
        # Only pass `logits_to_keep` when the model supports it (some models and VLMs don't).
        if "logits_to_keep" in self.model_kwarg_keys:
            model_inputs["logits_to_keep"] = logits_to_keep + 1
        logits = model(**model_inputs).logits
        logits = logits[:, :-1, :]  # the last logit predicts beyond the sequence
        logits = logits[:, -logits_to_keep:, :]
        completion_ids = input_ids[:, -logits_to_keep:]
        per_token_logps = selective_log_softmax(logits, completion_ids)
        completion_mask = attention_mask[:, -logits_to_keep:]
        return (per_token_logps * completion_mask).sum(dim=1)

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        mode = "train" if self.model.training else "eval"

        policy_logps = self._get_sequence_logps(
            model, inputs["input_ids"], inputs["attention_mask"], inputs["logits_to_keep"]
        )

        # Implicit reward beta2 * log(pi / pi_ref), regressed onto the optimal advantage r - V*
        implicit_reward = self.args.beta2 * (policy_logps - inputs["ref_logps"])
        target = inputs["rewards"] - inputs["v_star"]
        loss = ((implicit_reward - target) ** 2).mean()

        self._metrics[mode]["implicit_reward"].append(implicit_reward.mean().item())
        self._metrics[mode]["advantage"].append(target.mean().item())
        return loss

    def forward(self, input_ids, attention_mask, ref_logps, rewards, v_star):
        inputs = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "logits_to_keep": 3,
            "ref_logps": ref_logps,
            "rewards": rewards,
            "v_star": v_star,
        }
        loss = self.compute_loss(self.model, inputs)
        mode = "train" if self.model.training else "eval"
        return loss, dict(self._metrics[mode])


ENTRY = A2POTrainer
torch.manual_seed(0)
INPUTS = [
    (torch.randint(0, 11, (2, 5)), torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]]),
     torch.randn(2), torch.tensor([1.0, 0.0]), torch.tensor([0.4, 0.2])),
    (torch.randint(0, 11, (2, 5)), torch.ones(2, 5, dtype=torch.long),
     torch.randn(2), torch.tensor([0.0, 0.0]), torch.tensor([0.1, 0.3])),
]
