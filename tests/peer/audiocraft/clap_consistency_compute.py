"""AudioCraft's CLAPTextConsistencyMetric.compute: the mean cosine similarity of audio and
text embeddings, guarded by `assert self.weight.item() > 0, ...` and returned as a Python
float (`(self.cosine_sum / self.weight).item()`). The metric is one batch's: reset,
accumulated as `update` accumulates (`cosine_sum += cosine_sim.sum(dim=0)`, `weight +=
torch.tensor(cosine_sim.size(0))`), then computed. torchmetrics' `Metric` is written as an
`nn.Module` whose states are buffers; the CLAP model is left out, the embeddings come in."""

import torch
from torch import nn

ORIGIN = "facebookresearch/audiocraft: audiocraft/metrics/clap_consistency.py: CLAPTextConsistencyMetric.compute"
CATEGORY = "out_of_scope"


class Metric(nn.Module):
    """torchmetrics.Metric's states: add_state registers a buffer, reset restores it."""

    def __init__(self):
        super().__init__()
        self._defaults = {}

    def add_state(self, name, default, dist_reduce_fx=None):
        self._defaults[name] = default.clone()
        self.register_buffer(name, default.clone())

    def reset(self):
        for name, default in self._defaults.items():
            setattr(self, name, default.clone())


class TextConsistencyMetric(Metric):
    """Text consistency metric measuring consistency between audio and text pairs."""

    def compute(self):
        raise NotImplementedError("implement how to compute the final metric score.")


class CLAPTextConsistencyMetric(TextConsistencyMetric):
    def __init__(self):
        super().__init__()
        self.add_state("cosine_sum", default=torch.tensor(0.), dist_reduce_fx="sum")
        self.add_state("weight", default=torch.tensor(0.), dist_reduce_fx="sum")

    def compute(self):
        """Computes the average cosine similarty across all audio/text pairs."""
        assert self.weight.item() > 0, "Unable to compute with total number of comparisons <= 0"  # type: ignore
        return (self.cosine_sum / self.weight).item()  # type: ignore

    def forward(self, audio_embeddings, text_embeddings):
        self.reset()
        # cosine similarity between the text and the audio embedding
        cosine_sim = torch.nn.functional.cosine_similarity(audio_embeddings, text_embeddings, dim=1, eps=1e-8)
        self.cosine_sum += cosine_sim.sum(dim=0)
        self.weight += torch.tensor(cosine_sim.size(0))
        return self.compute()


ENTRY = CLAPTextConsistencyMetric
torch.manual_seed(0)
INPUTS = [
    (torch.randn(3, 8), torch.randn(3, 8)),
    (torch.randn(0, 8), torch.randn(0, 8)),
]
