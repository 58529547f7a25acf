"""Whisper's BeamSearchDecoder.finalize: when an audio has fewer finished sequences than
beams, its unfinished beams are added best first, ordered with `np.argsort` over a row of
the tensor of scores, each read as a Python list (`.tolist()`) and number (`.item()`);
the sequences are returned as lists of tensors and floats. The finished sequences of the
earlier steps come in as an input."""

from typing import List, Optional

import numpy as np
import torch
from torch import Tensor, nn

ORIGIN = "openai/whisper: whisper/decoding.py: BeamSearchDecoder.finalize"
CATEGORY = "out_of_scope"


class TokenDecoder:
    def reset(self):
        """Initialize any stateful variables for decoding a new sequence"""


class BeamSearchDecoder(TokenDecoder):
    def __init__(
        self,
        beam_size: int,
        eot: int,
        inference,
        patience: Optional[float] = None,
    ):
        self.beam_size = beam_size
        self.eot = eot
        self.inference = inference
        self.patience = patience or 1.0
        self.max_candidates: int = round(beam_size * self.patience)
        self.finished_sequences = None

        assert (
            self.max_candidates > 0
        ), f"Invalid beam size ({beam_size}) or patience ({patience})"

    def reset(self):
        self.finished_sequences = None

    def finalize(self, preceding_tokens: Tensor, sum_logprobs: Tensor):
        # collect all finished sequences, including patience, and add unfinished ones if not enough
        sum_logprobs = sum_logprobs.cpu()
        for i, sequences in enumerate(self.finished_sequences):
            if (
                len(sequences) < self.beam_size
            ):  # when not enough sequences are finished
                for j in list(np.argsort(sum_logprobs[i]))[::-1]:
                    sequence = preceding_tokens[i, j].tolist() + [self.eot]
                    sequences[tuple(sequence)] = sum_logprobs[i][j].item()
                    if len(sequences) >= self.beam_size:
                        break

        tokens: List[List[Tensor]] = [
            [torch.tensor(seq) for seq in sequences.keys()]
            for sequences in self.finished_sequences
        ]
        sum_logprobs: List[List[float]] = [
            list(sequences.values()) for sequences in self.finished_sequences
        ]
        return tokens, sum_logprobs


class Decoding(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = BeamSearchDecoder(beam_size=2, eot=4, inference=None)

    def forward(self, preceding_tokens, sum_logprobs, finished):
        self.decoder.finished_sequences = [dict(sequences) for sequences in finished]
        return self.decoder.finalize(preceding_tokens, sum_logprobs)


ENTRY = Decoding
torch.manual_seed(0)
INPUTS = [
    (torch.tensor([[[0, 1, 2], [0, 2, 3]], [[0, 3, 3], [0, 1, 1]]]), torch.randn(2, 2),
     [{(0, 2, 4): -0.5}, {(0, 3, 4): -1.0, (0, 1, 4): -2.0}]),
    (torch.tensor([[[0, 2, 1], [0, 3, 1]]]), torch.randn(1, 2), [{}]),
]
