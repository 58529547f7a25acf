"""TRL's BCO trainer loss and metrics: the policy's (and, without precomputed reference
log-probabilities, the reference model's) completion log-probabilities are split into the
desirable and undesirable examples, the BCO loss subtracts the running mean `delta` of the
implicit rewards, and every metric is gathered and read back with `.item()`; the counts of
desirable and undesirable examples, Python numbers read so, choose which sums are logged
(`if all_num_chosen > 0:`). Python values and structure from tensor data: not fixable by
design. The accelerator is a one-process stand-in (accelerate's gather_for_metrics returns
the tensor as it is when there is a single process); the trainer's own `forward(model, batch)`
is `forward_policy` here, since the module's `forward` is the entry."""

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "huggingface/trl: trl/experimental/bco/bco_trainer.py: BCOTrainer.get_batch_loss_metrics"
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


class SingleProcessAccelerator:
    device = torch.device("cpu")
    use_distributed = False

    def gather_for_metrics(self, tensor):
        return tensor


@dataclass
class RunningMoments:
    accelerator: SingleProcessAccelerator
    mean: float = 0
    std: float = 1
    var: float = 1
    count: float = 1e-24

    @torch.no_grad()
    def update(self, xs):
        xs_count = xs.numel()
        xs_var, xs_mean = torch.var_mean(xs, unbiased=False)
        xs_mean, xs_var = xs_mean.float(), xs_var.float()

        delta = xs_mean - self.mean
        tot_count = self.count + xs_count

        new_sum = xs_var * xs_count
        old_sum = self.var * self.count + delta**2 * self.count * xs_count / tot_count
        tot_sum = old_sum + new_sum

        self.mean += (delta * xs_count / tot_count).item()
        new_var = tot_sum / tot_count
        self.std = (new_var * tot_count / (tot_count - 1)).float().sqrt().item()
        self.var = new_var.item()
        self.count = tot_count

        return xs_mean.item(), (xs_var * xs_count / (xs_count - 1)).float().sqrt().item()


class Output:
    def __init__(self, logits):
        self.logits = logits


class TinyCausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(11, 6)
        self.head = nn.Linear(6, 11)

    def forward(self, input_ids, attention_mask=None):
        return Output(self.head(self.embed(input_ids) * attention_mask.unsqueeze(-1)))


class BCOTrainer(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = TinyCausalLM()
        self.ref_model = TinyCausalLM()
        self.accelerator = SingleProcessAccelerator()
        self.running = RunningMoments(self.accelerator)
        self.beta = 0.1
        self.is_encoder_decoder = False
        self.aux_loss_enabled = False
        self.match_underlying_distribution = False

    @staticmethod
    def get_batch_logps(logits, labels, average_log_prob=False, is_encoder_decoder=False):
        if logits.shape[:-1] != labels.shape:
            raise ValueError("Logits (batch and sequence length dim) and labels must have the same shape.")

        if not is_encoder_decoder:
            labels = labels[:, 1:].clone()
            logits = logits[:, :-1, :]
        else:
            labels = labels.clone()

        loss_mask = labels != -100

        # dummy token; we'll ignore the losses on these tokens later
        labels[labels == -100] = 0

        per_token_logps = selective_log_softmax(logits, labels)

        if average_log_prob:
            return (per_token_logps * loss_mask).sum(-1) / loss_mask.sum(-1)
        else:
            return (per_token_logps * loss_mask).sum(-1)

    def forward_policy(self, model, batch):
        outputs = model(batch["completion_input_ids"], attention_mask=batch["completion_attention_mask"])
        completion_logits = outputs.logits

        completion_logps = self.get_batch_logps(
            completion_logits,
            batch["completion_labels"],
            average_log_prob=False,
            is_encoder_decoder=self.is_encoder_decoder,
        )

        if completion_logps.shape[0] != len(batch["label"]):
            raise ValueError(
                "There is a mismatch between the number of examples in this batch and the number of "
                "examples for which an output sequence was predicted."
            )

        chosen_idx = [i for i in range(completion_logps.shape[0]) if batch["label"][i] is True]
        rejected_idx = [i for i in range(completion_logps.shape[0]) if batch["label"][i] is False]

        chosen_logps = completion_logps[chosen_idx, ...]
        rejected_logps = completion_logps[rejected_idx, ...]

        chosen_logits = completion_logits[chosen_idx, ...]
        rejected_logits = completion_logits[rejected_idx, ...]

        return (chosen_logps, rejected_logps, chosen_logits, rejected_logits)

    def bco_loss(self, policy_chosen_logps, policy_rejected_logps, reference_chosen_logps,
                 reference_rejected_logps, chosen_embeddings, rejected_embeddings, do_train=True):
        chosen_logratios = policy_chosen_logps - reference_chosen_logps
        chosen_rewards = self.beta * chosen_logratios

        rejected_logratios = policy_rejected_logps - reference_rejected_logps
        rejected_rewards = self.beta * rejected_logratios

        if do_train:
            self.running.update(torch.cat((chosen_rewards, rejected_rewards), 0).detach())
        delta = torch.as_tensor(self.running.mean, device=chosen_rewards.device)

        chosen_losses = -F.logsigmoid(chosen_rewards - delta)
        rejected_losses = -F.logsigmoid(-(rejected_rewards - delta))

        losses = torch.cat((chosen_losses, rejected_losses), dim=0)

        return losses, chosen_rewards, rejected_rewards, delta

    def get_batch_loss_metrics(self, model, batch, do_train=True):
        """Compute the BCO loss and other metrics for the given batch of inputs for train or test."""
        metrics = {}
        batch = {k: (v.to(self.accelerator.device) if isinstance(v, torch.Tensor) else v) for k, v in batch.items()}

        forward_output = self.forward_policy(model, batch)
        (
            policy_chosen_logps,
            policy_rejected_logps,
            policy_chosen_logits,
            policy_rejected_logits,
        ) = forward_output[:4]

        # if reference_logps in batch use them, otherwise use the reference model
        if "reference_logps" in batch:
            chosen_idx = [i for i in range(batch["reference_logps"].shape[0]) if batch["label"][i] is True]
            rejected_idx = [i for i in range(batch["reference_logps"].shape[0]) if batch["label"][i] is False]

            reference_chosen_logps = batch["reference_logps"][chosen_idx, ...]
            reference_rejected_logps = batch["reference_logps"][rejected_idx, ...]
        else:
            with torch.no_grad():
                (
                    reference_chosen_logps,
                    reference_rejected_logps,
                    _,
                    _,
                ) = self.forward_policy(self.ref_model, batch)[:4]

        chosen_embeddings, rejected_embeddings = None, None

        losses, chosen_rewards, rejected_rewards, delta = self.bco_loss(
            policy_chosen_logps,
            policy_rejected_logps,
            reference_chosen_logps,
            reference_rejected_logps,
            chosen_embeddings,
            rejected_embeddings,
            do_train=do_train,
        )
        metrics["delta"] = self.accelerator.gather_for_metrics(delta).mean().item()

        num_chosen = torch.Tensor([len(chosen_rewards)]).to(self.accelerator.device)
        num_rejected = torch.Tensor([len(rejected_rewards)]).to(self.accelerator.device)

        all_num_chosen = self.accelerator.gather_for_metrics(num_chosen).sum().item()
        all_num_rejected = self.accelerator.gather_for_metrics(num_rejected).sum().item()

        if all_num_chosen > 0:
            metrics["rewards/chosen_sum"] = (
                self.accelerator.gather_for_metrics(chosen_rewards.nansum()).nansum().item()
            )
            metrics["logps/chosen_sum"] = (
                self.accelerator.gather_for_metrics(policy_chosen_logps.nansum()).nansum().item()
            )
            metrics["logits/chosen_sum"] = (
                self.accelerator.gather_for_metrics(policy_chosen_logits.nansum()).nansum().item()
            )
            metrics["count/chosen"] = all_num_chosen

        if all_num_rejected > 0:
            metrics["rewards/rejected_sum"] = (
                self.accelerator.gather_for_metrics(rejected_rewards.nansum()).nansum().item()
            )
            metrics["logps/rejected_sum"] = (
                self.accelerator.gather_for_metrics(policy_rejected_logps.nansum()).nansum().item()
            )
            metrics["logits/rejected_sum"] = (
                self.accelerator.gather_for_metrics(policy_rejected_logits.nansum()).nansum().item()
            )
            metrics["count/rejected"] = all_num_rejected

        loss = losses.nanmean()

        return loss, metrics

    def forward(self, input_ids, attention_mask, labels, label, reference_logps=None):
        batch = {
            "completion_input_ids": input_ids,
            "completion_attention_mask": attention_mask,
            "completion_labels": labels,
            "label": label,
        }
        if reference_logps is not None:
            batch["reference_logps"] = reference_logps
        return self.get_batch_loss_metrics(self.model, batch)


ENTRY = BCOTrainer
torch.manual_seed(0)
_ids = torch.randint(0, 11, (3, 5))
INPUTS = [
    (_ids, torch.ones(3, 5, dtype=torch.long), torch.where(torch.arange(5) < 2, -100, _ids),
     [True, False, True], torch.randn(3)),
    (_ids, torch.ones(3, 5, dtype=torch.long), torch.where(torch.arange(5) < 3, -100, _ids),
     [True, True, True]),
    (_ids, torch.ones(3, 5, dtype=torch.long), _ids, [True, False], torch.randn(3)),
]
