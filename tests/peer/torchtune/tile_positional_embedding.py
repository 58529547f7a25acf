"""torchtune's export-friendly tile positional embedding (Llama 3.2 Vision's encoder): per
image, the aspect ratio's tile counts are read into Python numbers (`n_tiles_h =
n_tiles_h.item()`), bounded with `torch._check`, and the embedding of the non-padded tiles
(sliced by those numbers and reshaped to their product) is added, gated by `tanh`, to the
image's first tiles. Python values from tensor data setting slices and shapes: not
fixable by design."""

import torch
import torch.nn.functional as F
from torch import nn

ORIGIN = "pytorch/torchtune: torchtune/modules/_export/_position_embeddings.py: TilePositionalEmbedding.forward"
CATEGORY = "out_of_scope"


class TilePositionalEmbedding(nn.Module):
    def __init__(self, max_num_tiles=3, embed_dim=4):
        super().__init__()
        self.max_num_tiles = max_num_tiles
        self.embed_dim = embed_dim

        scale = embed_dim**-0.5
        self.embedding = nn.Parameter(
            scale * torch.randn(max_num_tiles, max_num_tiles, 1, embed_dim)
        )
        self.gate = nn.Parameter(torch.full((1,), 0.5))

    def forward(self, x, aspect_ratio):
        bsz_and_n_imgs, n_tiles, n_tokens, embed_dim = x.shape
        torch._check(n_tiles <= self.max_num_tiles)

        for batch_idx, (n_tiles_h, n_tiles_w) in enumerate(aspect_ratio):
            # When we batch images, all are padded to the same amount of tiles.
            # The aspect_ratio lets us know the non padded tiles for each image.
            # We only add positional encoding to those.
            n_tiles_h = n_tiles_h.item()
            n_tiles_w = n_tiles_w.item()

            n_non_padded_tiles = int(n_tiles_h * n_tiles_w)

            # We get only the positional encoding for non padded tiles,
            # i.e. n_tiles_h, n_tiles_w.
            torch._check_is_size(n_tiles_h)
            torch._check_is_size(n_tiles_w)
            torch._check(n_tiles_h >= 1)
            torch._check(n_tiles_w >= 1)
            torch._check(n_tiles_h <= self.max_num_tiles)
            torch._check(n_tiles_w <= self.max_num_tiles)
            # TODO: Remove this once pytorch/pytorch#120288 is fixed
            padded_embedding = F.pad(self.embedding, (0, 0, 0, 0, 0, 1, 0, 1))
            pos_embed = padded_embedding[:n_tiles_h, :n_tiles_w, :, :]

            # We need to do a clone here in order to make this model export
            # friendly as the reshape is collapsing dim 0 and dim 1 into a
            # single dim.
            pos_embed = pos_embed.clone()
            pos_embed = pos_embed.reshape(n_non_padded_tiles, 1, self.embed_dim)

            x = F.pad(x, (0, 0, 0, 0, 0, 1, 0, 0))
            torch._check_is_size(n_non_padded_tiles)
            torch._check(n_non_padded_tiles < x.size(1))
            x[batch_idx, :n_non_padded_tiles, :, :] += pos_embed * self.gate.tanh()
            x = x[:, :n_tiles, :, :]

        return x


torch.manual_seed(0)
ENTRY = TilePositionalEmbedding
GRAD = True
INPUTS = [
    (torch.randn(2, 3, 2, 4), torch.tensor([[1, 3], [1, 2]])),
    (torch.randn(1, 2, 2, 4), torch.tensor([[2, 1]])),
    # more tiles than the image has: the bound check fails
    (torch.randn(1, 2, 2, 4), torch.tensor([[2, 2]])),
]
