"""Whisper's BeamSearchDecoder.update: a shape guard (`tokens.shape[0] % beam_size`),
then, per audio and beam, each prefix read as a Python list (`tokens[idx].tolist()`) and
each candidate's score and token as Python numbers (`.item()`); the candidates are ranked
in Python, finished ones collected up to the patience limit, the new beams built with
`torch.tensor` and the key-value cache rearranged. Successive inputs are successive
decoding steps of one decoder; the inference object is a stand-in that records the
rearrangement."""

from typing import Optional, Tuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

ORIGIN = "openai/whisper: whisper/decoding.py: BeamSearchDecoder.update"
CATEGORY = "out_of_scope"


class Inference:
    def __init__(self):
        self.rearranged = []

    def rearrange_kv_cache(self, source_indices) -> None:
        self.rearranged.append(list(source_indices))


class TokenDecoder:
    def reset(self):
        """Initialize any stateful variables for decoding a new sequence"""


class BeamSearchDecoder(TokenDecoder):
    def __init__(
        self,
        beam_size: int,
        eot: int,
        inference: Inference,
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

    def update(
        self, tokens: Tensor, logits: Tensor, sum_logprobs: Tensor
    ) -> Tuple[Tensor, bool]:
        if tokens.shape[0] % self.beam_size != 0:
            raise ValueError(f"{tokens.shape}[0] % {self.beam_size} != 0")

        n_audio = tokens.shape[0] // self.beam_size
        if self.finished_sequences is None:  # for the first update
            self.finished_sequences = [{} for _ in range(n_audio)]

        logprobs = F.log_softmax(logits.float(), dim=-1)
        next_tokens, source_indices, finished_sequences = [], [], []
        for i in range(n_audio):
            scores, sources, finished = {}, {}, {}

            # STEP 1: calculate the cumulative log probabilities for possible candidates
            for j in range(self.beam_size):
                idx = i * self.beam_size + j
                prefix = tokens[idx].tolist()
                for logprob, token in zip(*logprobs[idx].topk(self.beam_size + 1)):
                    new_logprob = (sum_logprobs[idx] + logprob).item()
                    sequence = tuple(prefix + [token.item()])
                    scores[sequence] = new_logprob
                    sources[sequence] = idx

            # STEP 2: rank the candidates and keep the top beam_size sequences for each audio
            saved = 0
            for sequence in sorted(scores, key=scores.get, reverse=True):
                if sequence[-1] == self.eot:
                    finished[sequence] = scores[sequence]
                else:
                    sum_logprobs[len(next_tokens)] = scores[sequence]
                    next_tokens.append(sequence)
                    source_indices.append(sources[sequence])

                    saved += 1
                    if saved == self.beam_size:
                        break

            finished_sequences.append(finished)

        tokens = torch.tensor(next_tokens, device=tokens.device)
        self.inference.rearrange_kv_cache(source_indices)

        # add newly finished sequences to self.finished_sequences
        assert len(self.finished_sequences) == len(finished_sequences)
        for previously_finished, newly_finished in zip(
            self.finished_sequences, finished_sequences
        ):
            for seq in sorted(newly_finished, key=newly_finished.get, reverse=True):
                if len(previously_finished) >= self.max_candidates:
                    break  # the candidate list is full
                previously_finished[seq] = newly_finished[seq]

        # mark as completed if all audio has enough number of samples
        completed = all(
            len(sequences) >= self.max_candidates
            for sequences in self.finished_sequences
        )
        return tokens, completed


class Decoding(nn.Module):
    def __init__(self):
        super().__init__()
        self.inference = Inference()
        self.decoder = BeamSearchDecoder(beam_size=2, eot=4, inference=self.inference)

    def forward(self, tokens, logits, sum_logprobs):
        tokens, completed = self.decoder.update(tokens, logits, sum_logprobs)
        return tokens, completed, sum_logprobs, self.inference.rearranged[-1]


def _eot_first(n):
    logits = torch.randn(n, 5)
    logits[:, 4] = 5.0
    return logits


ENTRY = Decoding
torch.manual_seed(0)
INPUTS = [
    (torch.tensor([[0, 1], [0, 2], [0, 3], [0, 1]]), torch.randn(4, 5), torch.zeros(4)),
    (torch.tensor([[0, 1, 2], [0, 2, 2], [0, 3, 1], [0, 1, 1]]), _eot_first(4), torch.randn(4)),
    (torch.tensor([[0, 1, 2, 3], [0, 2, 2, 1], [0, 3, 1, 1], [0, 1, 1, 0]]), _eot_first(4),
     torch.randn(4)),
    (torch.tensor([[0, 1], [0, 2], [0, 3]]), torch.randn(3, 5), torch.zeros(3)),
]
