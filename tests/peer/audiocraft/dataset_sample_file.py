"""AudioCraft's AudioDataset.sample_file: picks the file a training example is cut from,
either from a per-epoch permutation of the files or by drawing an index with the
dataset's generator, uniformly or weighted by the files' durations; the drawn index is
read as a Python int (`int(torch.randint(...).item())`,
`int(torch.multinomial(...).item())`) to index the metadata list. The generator is seeded
per example as `AudioDataset.__getitem__` seeds it; the metadata are a few in-memory
entries. torch 2.13's Dynamo breaks on the generator made in the frame, on its
`manual_seed` and on the draw given it (an opaque object, out of scope by design); its
graph holds no operation."""

from dataclasses import dataclass

import torch
from torch import nn

ORIGIN = "facebookresearch/audiocraft: audiocraft/data/audio_dataset.py: AudioDataset.sample_file"
CATEGORY = "out_of_scope"


@dataclass(order=True)
class AudioMeta:
    path: str
    duration: float
    sample_rate: int


class AudioDataset:
    def __init__(self, meta, num_samples=10, sample_on_duration=True, sample_on_weight=True,
                 permutation_on_files=False, shuffle_seed=0):
        self.meta = meta
        self.num_samples = num_samples
        self.sample_on_duration = sample_on_duration
        self.sample_on_weight = sample_on_weight
        self.permutation_on_files = permutation_on_files
        self.shuffle_seed = shuffle_seed
        self.current_epoch = None
        self.sampling_probabilities = self._get_sampling_probabilities()

    def __len__(self):
        return self.num_samples

    def _get_sampling_probabilities(self, normalized=True):
        scores = []
        for file_meta in self.meta:
            score = 1.
            if self.sample_on_duration:
                score *= file_meta.duration
            scores.append(score)
        probabilities = torch.tensor(scores)
        if normalized:
            probabilities /= probabilities.sum()
        return probabilities

    @staticmethod
    def _get_file_permutation(num_files: int, permutation_index: int, base_seed: int):
        # Used to keep the most recent files permutation in memory implicitely.
        # will work unless someone is using a lot of Datasets in parallel.
        rng = torch.Generator()
        rng.manual_seed(base_seed + permutation_index)
        return torch.randperm(num_files, generator=rng)

    def sample_file(self, index: int, rng: torch.Generator) -> AudioMeta:
        if self.permutation_on_files:
            assert self.current_epoch is not None
            total_index = self.current_epoch * len(self) + index
            permutation_index = total_index // len(self.meta)
            relative_index = total_index % len(self.meta)
            permutation = AudioDataset._get_file_permutation(
                len(self.meta), permutation_index, self.shuffle_seed)
            file_index = permutation[relative_index]
            return self.meta[file_index]

        if not self.sample_on_weight and not self.sample_on_duration:
            file_index = int(torch.randint(len(self.sampling_probabilities), (1,), generator=rng).item())
        else:
            file_index = int(torch.multinomial(self.sampling_probabilities, 1, generator=rng).item())

        return self.meta[file_index]


class Sampling(nn.Module):
    def __init__(self):
        super().__init__()
        meta = [AudioMeta("a.wav", 3.0, 16000), AudioMeta("b.wav", 9.5, 16000),
                AudioMeta("c.wav", 1.2, 16000), AudioMeta("d.wav", 6.0, 16000)]
        self.weighted = AudioDataset(meta)
        self.uniform = AudioDataset(meta, sample_on_duration=False, sample_on_weight=False)
        self.permuted = AudioDataset(meta, permutation_on_files=True)
        self.permuted.current_epoch = 2

    def forward(self, index, how):
        dataset = {"weighted": self.weighted, "uniform": self.uniform, "permuted": self.permuted}[how]
        rng = torch.Generator()
        rng.manual_seed(index + dataset.num_samples * 7)
        return dataset.sample_file(index, rng).path


ENTRY = Sampling
torch.manual_seed(0)
INPUTS = [
    (3, "weighted"),
    (5, "uniform"),
    (7, "permuted"),
]
