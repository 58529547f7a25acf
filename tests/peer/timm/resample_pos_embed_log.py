"""timm's resample_abs_pos_embed: interpolates a position embedding to a new grid and, when
`verbose`, logs the resize (`if not torch.jit.is_scripting() and verbose:
_logger.info(f'Resized position embedding: {old_size} to {new_size}.')`)."""

import logging
import math

import torch
import torch.nn.functional as F

ORIGIN = "huggingface/pytorch-image-models: timm/layers/pos_embed.py: resample_abs_pos_embed"
CATEGORY = "defer"

_logger = logging.getLogger(__name__)


def resample_abs_pos_embed(posemb, new_size, old_size=None, num_prefix_tokens=1, interpolation="bicubic",
                           antialias=True, verbose=False):
    # sort out sizes, assume square if old size not provided
    num_pos_tokens = posemb.shape[1]
    num_new_tokens = new_size[0] * new_size[1] + num_prefix_tokens
    if num_new_tokens == num_pos_tokens and new_size[0] == new_size[1]:
        return posemb

    if old_size is None:
        hw = int(math.sqrt(num_pos_tokens - num_prefix_tokens))
        old_size = hw, hw

    if num_prefix_tokens:
        posemb_prefix, posemb = posemb[:, :num_prefix_tokens], posemb[:, num_prefix_tokens:]
    else:
        posemb_prefix, posemb = None, posemb

    # do the interpolation
    embed_dim = posemb.shape[-1]
    orig_dtype = posemb.dtype
    posemb = posemb.float()  # interpolate needs float32
    posemb = posemb.reshape(1, old_size[0], old_size[1], -1).permute(0, 3, 1, 2)
    posemb = F.interpolate(posemb, size=new_size, mode=interpolation, antialias=antialias)
    posemb = posemb.permute(0, 2, 3, 1).reshape(1, -1, embed_dim)
    posemb = posemb.to(orig_dtype)

    # add back extra (class, etc) prefix tokens
    if posemb_prefix is not None:
        posemb = torch.cat([posemb_prefix, posemb], dim=1)

    if not torch.jit.is_scripting() and verbose:
        _logger.info(f"Resized position embedding: {old_size} to {new_size}.")

    return posemb


ENTRY = resample_abs_pos_embed
torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 5, 2), (3, 3), None, 1, "bicubic", True, True),
    (torch.randn(1, 5, 2), (3, 3)),
    (torch.randn(1, 5, 2), (2, 2), None, 1, "bicubic", True, True),
]
