"""Whisper's GreedyDecoder.finalize: at the end of greedy decoding every sequence gets a
closing end-of-text token, and the summed log-probabilities are returned as a Python list
(`sum_logprobs.tolist()`)."""

import torch
import torch.nn.functional as F
from torch import Tensor, nn

ORIGIN = "openai/whisper: whisper/decoding.py: GreedyDecoder.finalize"
CATEGORY = "out_of_scope"


class TokenDecoder:
    def reset(self):
        """Initialize any stateful variables for decoding a new sequence"""


class GreedyDecoder(TokenDecoder):
    def __init__(self, temperature: float, eot: int):
        self.temperature = temperature
        self.eot = eot

    def finalize(self, tokens: Tensor, sum_logprobs: Tensor):
        # make sure each sequence has at least one EOT token at the end
        tokens = F.pad(tokens, (0, 1), value=self.eot)
        return tokens, sum_logprobs.tolist()


class Decoding(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = GreedyDecoder(temperature=0.0, eot=7)

    def forward(self, tokens, sum_logprobs):
        return self.decoder.finalize(tokens, sum_logprobs * 1.0)


ENTRY = Decoding
torch.manual_seed(0)
INPUTS = [
    (torch.tensor([[0, 3, 5, 7], [0, 2, 7, 7]]), torch.randn(2)),
    (torch.tensor([[0, 1]]), torch.randn(1)),
]
