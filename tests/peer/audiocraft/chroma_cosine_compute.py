"""AudioCraft's ChromaCosineSimilarityMetric.compute: the mean cosine similarity of
chromagram frames, guarded by `assert self.weight.item() > 0, ...` and returned as a
Python float (`(self.cosine_sum / self.weight).item()`). The metric is one batch's:
reset, accumulated from per-item frame similarities as `update` accumulates them
(`cosine_sum += cosine_sim.sum(dim=0)`, `weight += torch.tensor(t)`), then computed.
torchmetrics' `Metric` is written as an `nn.Module` whose states are buffers; the chroma
extraction (librosa's filter bank) is left out, the similarities come in."""

import torch
from torch import nn

ORIGIN = "facebookresearch/audiocraft: audiocraft/metrics/chroma_cosinesim.py: ChromaCosineSimilarityMetric.compute"
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


class ChromaCosineSimilarityMetric(Metric):
    def __init__(self, eps: float = 1e-8):
        super().__init__()
        self.eps = eps
        self.add_state("cosine_sum", default=torch.tensor(0.), dist_reduce_fx="sum")
        self.add_state("weight", default=torch.tensor(0.), dist_reduce_fx="sum")

    def compute(self) -> float:
        """Computes the average cosine similarty across all generated/target chromagrams pairs."""
        assert self.weight.item() > 0, "Unable to compute with total number of comparisons <= 0"  # type: ignore
        return (self.cosine_sum / self.weight).item()  # type: ignore

    def forward(self, gt_chroma, gen_chroma, chroma_lens):
        self.reset()
        for i in range(len(gt_chroma)):
            t = chroma_lens[i]
            cosine_sim = torch.nn.functional.cosine_similarity(
                gt_chroma[i, :t], gen_chroma[i, :t], dim=1, eps=self.eps)
            self.cosine_sum += cosine_sim.sum(dim=0)  # type: ignore
            self.weight += torch.tensor(t)  # type: ignore
        return self.compute()


ENTRY = ChromaCosineSimilarityMetric
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 4, 12).abs(), torch.randn(2, 4, 12).abs(), [4, 3]),
    (torch.randn(0, 4, 12), torch.randn(0, 4, 12), []),
]
