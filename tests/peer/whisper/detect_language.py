"""Whisper's detect_language: one decoder step from the start-of-transcript token, every
non-language token masked out, then the probability of each language read into a dict of
Python floats (`language_token_probs[i, j].item()` in a comprehension). A tokenizer with
no language raises first; a 2-D mel is batched and unbatched, and already-encoded audio
features skip the encoder. The model and tokenizer are small stand-ins with the
attributes the function reads."""

from typing import List, Tuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

ORIGIN = "openai/whisper: whisper/decoding.py: detect_language"
CATEGORY = "out_of_scope"


class ModelDimensions:
    n_mels = 5
    n_audio_ctx = 3
    n_audio_state = 4
    n_vocab = 8


class Tokenizer:
    def __init__(self, language):
        self.language = language
        self.sot = 0
        self.all_language_tokens = (1, 2, 3)
        self.all_language_codes = ("en", "de", "fr")
        self.language_token = None if language is None else 1 + self.all_language_codes.index(language)
        self.sot_sequence = (self.sot,) if language is None else (self.sot, self.language_token)


class AudioEncoder(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.conv = nn.Conv1d(dims.n_mels, dims.n_audio_state, 1)

    def forward(self, x):
        return F.gelu(self.conv(x)).permute(0, 2, 1)


class Whisper(nn.Module):
    def __init__(self):
        super().__init__()
        self.dims = ModelDimensions()
        self.encoder = AudioEncoder(self.dims)
        self.token_embedding = nn.Embedding(self.dims.n_vocab, self.dims.n_audio_state)

    def logits(self, tokens, audio_features):
        x = self.token_embedding(tokens) + audio_features.mean(dim=1, keepdim=True)
        return x @ self.token_embedding.weight.T


@torch.no_grad()
def detect_language(
    model: "Whisper", mel: Tensor, tokenizer: Tokenizer = None
) -> Tuple[Tensor, List[dict]]:
    if (
        tokenizer.language is None
        or tokenizer.language_token not in tokenizer.sot_sequence
    ):
        raise ValueError(
            "This model doesn't have language tokens so it can't perform lang id"
        )

    single = mel.ndim == 2
    if single:
        mel = mel.unsqueeze(0)

    # skip encoder forward pass if already-encoded audio features were given
    if mel.shape[-2:] != (model.dims.n_audio_ctx, model.dims.n_audio_state):
        mel = model.encoder(mel)

    # forward pass using a single token, startoftranscript
    n_audio = mel.shape[0]
    x = torch.tensor([[tokenizer.sot]] * n_audio).to(mel.device)  # [n_audio, 1]
    logits = model.logits(x, mel)[:, 0]

    # collect detected languages; suppress all non-language tokens
    mask = torch.ones(logits.shape[-1], dtype=torch.bool)
    mask[list(tokenizer.all_language_tokens)] = False
    logits[:, mask] = -np.inf
    language_tokens = logits.argmax(dim=-1)
    language_token_probs = logits.softmax(dim=-1).cpu()
    language_probs = [
        {
            c: language_token_probs[i, j].item()
            for j, c in zip(tokenizer.all_language_tokens, tokenizer.all_language_codes)
        }
        for i in range(n_audio)
    ]

    if single:
        language_tokens = language_tokens[0]
        language_probs = language_probs[0]

    return language_tokens, language_probs


class LanguageDetection(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = Whisper()

    def forward(self, mel, tokenizer):
        return detect_language(self.model, mel, tokenizer)


ENTRY = LanguageDetection
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 5, 3), Tokenizer("de")),
    (torch.randn(5, 3), Tokenizer("en")),
    (torch.randn(2, 3, 4), Tokenizer("fr")),
    (torch.randn(2, 5, 3), Tokenizer(None)),
]
