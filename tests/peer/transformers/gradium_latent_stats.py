"""Gradium Phonon TTS: the latent statistics' moving average is updated for the first
training forwards; the step count is a 0-d buffer read with `.item()`, and the frames are
picked with a boolean mask (`labels[labels_mask.bool()]`), whose row count depends on the
data. Not fixable by design (data-dependent output shape), though the `.item()` condition is."""

import torch
from torch import nn

ORIGIN = "huggingface/transformers: src/transformers/models/gradium_phonon_tts/modeling_gradium_phonon_tts.py: GradiumPhononTTSForConditionalGeneration.update_latent_stats"
CATEGORY = "out_of_scope"


class Config:
    latent_stats_ema_steps = 2
    latent_stats_ema_decay = 0.5


class LatentStats(nn.Module):
    def __init__(self):
        super().__init__()
        self.config = Config()
        self.latent_mean = nn.Buffer(torch.zeros(3))
        self.latent_std = nn.Buffer(torch.ones(3))
        self.latent_stats_num_updates = nn.Buffer(torch.zeros((), dtype=torch.long))
        self._latent_stats_frozen = False

    @torch.no_grad()
    def update_latent_stats(self, labels, labels_mask):
        if self._latent_stats_frozen:
            return
        if self.latent_stats_num_updates.item() >= self.config.latent_stats_ema_steps:
            self._latent_stats_frozen = True
            return
        frames = labels[labels_mask.bool()].to(self.latent_mean.dtype)
        decay = self.config.latent_stats_ema_decay
        self.latent_mean.mul_(decay).add_(frames.mean(dim=0), alpha=1 - decay)
        self.latent_std.mul_(decay).add_(frames.std(dim=0), alpha=1 - decay)
        self.latent_stats_num_updates += 1

    def forward(self, labels, labels_mask):
        self.update_latent_stats(labels, labels_mask)
        return (labels - self.latent_mean) / self.latent_std


ENTRY = LatentStats
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 4, 3), torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])),
    (torch.randn(2, 4, 3), torch.tensor([[1, 1, 1, 1], [1, 0, 0, 0]])),
    (torch.randn(2, 4, 3), torch.tensor([[1, 1, 0, 0], [1, 1, 0, 0]])),
]
