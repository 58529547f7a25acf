"""fairseq's character token embedder on character inputs: end-of-sentence characters are
zeroed in place only when there are some (`if eos.any(): chars[eos] = 0`), and the word
embeddings of padding and end-of-sentence tokens are overwritten the same way (`if pads.any():
word_embs[pads] = 0`, `if eos.any(): word_embs[eos] = self.symbol_embeddings[self.eos_idx]`):
branches on tensor predicates around masked writes (the ONNX path writes the same thing with
torch.where)."""

from typing import List, Tuple

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "facebookresearch/fairseq: fairseq/modules/character_token_embedder.py: CharacterTokenEmbedder.forward"
CATEGORY = "where"

CHAR_PAD_IDX = 0
CHAR_EOS_IDX = 257


class CharacterTokenEmbedder(torch.nn.Module):
    def __init__(
            self,
            filters: List[Tuple[int, int]] = [(1, 4), (2, 4)],
            char_embed_dim: int = 3,
            word_embed_dim: int = 4,
            max_char_len: int = 4,
            char_inputs: bool = True
    ):
        super(CharacterTokenEmbedder, self).__init__()

        self.onnx_trace = False
        self.embedding_dim = word_embed_dim
        self.max_char_len = max_char_len
        self.char_embeddings = nn.Embedding(258, char_embed_dim, padding_idx=0)
        self.symbol_embeddings = nn.Parameter(torch.FloatTensor(2, word_embed_dim))
        self.eos_idx, self.unk_idx = 0, 1
        self.char_inputs = char_inputs

        self.convolutions = nn.ModuleList()
        for width, out_c in filters:
            self.convolutions.append(
                nn.Conv1d(char_embed_dim, out_c, kernel_size=width)
            )

        last_dim = sum(f[1] for f in filters)

        self.highway = None

        self.projection = nn.Linear(last_dim, word_embed_dim)

        self.vocab = None

        self.reset_parameters()

    def reset_parameters(self):
        nn.init.xavier_normal_(self.char_embeddings.weight)
        nn.init.xavier_normal_(self.symbol_embeddings)
        nn.init.xavier_uniform_(self.projection.weight)

        nn.init.constant_(self.char_embeddings.weight[self.char_embeddings.padding_idx], 0.)
        nn.init.constant_(self.projection.bias, 0.)

    def forward(
            self,
            input: torch.Tensor,
    ):
        if self.char_inputs:
            chars = input.view(-1, self.max_char_len)
            pads = chars[:, 0].eq(CHAR_PAD_IDX)
            eos = chars[:, 0].eq(CHAR_EOS_IDX)
            if eos.any():
                if self.onnx_trace:
                    chars = torch.where(eos.unsqueeze(1), chars.new_zeros(1), chars)
                else:
                    chars[eos] = 0

            unk = None
        else:
            flat_words = input.view(-1)
            chars = self.word_to_char[flat_words.type_as(self.word_to_char)].type_as(input)
            pads = flat_words.eq(self.vocab.pad())
            eos = flat_words.eq(self.vocab.eos())
            unk = flat_words.eq(self.vocab.unk())

        word_embs = self._convolve(chars)
        if self.onnx_trace:
            if pads.any():
                word_embs = torch.where(pads.unsqueeze(1), word_embs.new_zeros(1), word_embs)
            if eos.any():
                word_embs = torch.where(eos.unsqueeze(1), self.symbol_embeddings[self.eos_idx], word_embs)
            if unk is not None and unk.any():
                word_embs = torch.where(unk.unsqueeze(1), self.symbol_embeddings[self.unk_idx], word_embs)
        else:
            if pads.any():
                word_embs[pads] = 0
            if eos.any():
                word_embs[eos] = self.symbol_embeddings[self.eos_idx]
            if unk is not None and unk.any():
                word_embs[unk] = self.symbol_embeddings[self.unk_idx]

        return word_embs.view(input.size()[:2] + (-1,))

    def _convolve(
            self,
            char_idxs: torch.Tensor,
    ):
        char_embs = self.char_embeddings(char_idxs)
        char_embs = char_embs.transpose(1, 2)  # BTC -> BCT

        conv_result = []

        for conv in self.convolutions:
            x = conv(char_embs)
            x, _ = torch.max(x, -1)
            x = F.relu(x)
            conv_result.append(x)

        x = torch.cat(conv_result, dim=-1)

        if self.highway is not None:
            x = self.highway(x)
        x = self.projection(x)

        return x


ENTRY = CharacterTokenEmbedder
INPUTS = [
    (torch.tensor([[[5, 6, 0, 0], [257, 0, 0, 0], [0, 0, 0, 0]],
                   [[7, 8, 9, 0], [10, 0, 0, 0], [257, 0, 0, 0]]]),),
    (torch.tensor([[[5, 6, 0, 0], [11, 12, 13, 14]],
                   [[7, 8, 9, 0], [10, 0, 0, 0]]]),),
    (torch.tensor([[[5, 6, 0, 0], [0, 0, 0, 0]],
                   [[7, 8, 9, 0], [10, 0, 0, 0]]]),),
]
