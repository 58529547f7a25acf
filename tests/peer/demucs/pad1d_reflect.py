"""Demucs' hybrid models pad the waveform before their STFT (`HDemucs._spec`,
`HTDemucs._spec`) with `pad1d`, a wrapper around `F.pad` that allows reflect padding of an
input shorter than the padding: it first adds zeros on the right (and, past the right
padding, on the left) so that the reflection has enough samples, then pads, then checks
its work with two asserts, the second on tensor values
(`assert (out[..., padding_left: padding_left + length] == x0).all()`): the input must come
back unchanged in the middle of the output, which fails only when the input holds NaN.
Dynamo traces that assert (as `torch._assert`) without a break, and a failing one raises
RuntimeError("assertion error") compiled."""

import typing as tp

import torch
from torch.nn import functional as F

ORIGIN = "facebookresearch/demucs: demucs/hdemucs.py: pad1d"
CATEGORY = "no_break"


def pad1d(x: torch.Tensor, paddings: tp.Tuple[int, int], mode: str = 'constant', value: float = 0.):
    """Tiny wrapper around F.pad, just to allow for reflect padding on small input.
    If this is the case, we insert extra 0 padding to the right before the reflection happen."""
    x0 = x
    length = x.shape[-1]
    padding_left, padding_right = paddings
    if mode == 'reflect':
        max_pad = max(padding_left, padding_right)
        if length <= max_pad:
            extra_pad = max_pad - length + 1
            extra_pad_right = min(padding_right, extra_pad)
            extra_pad_left = extra_pad - extra_pad_right
            paddings = (padding_left - extra_pad_left, padding_right - extra_pad_right)
            x = F.pad(x, (extra_pad_left, extra_pad_right))
    out = F.pad(x, paddings, mode, value)
    assert out.shape[-1] == length + padding_left + padding_right
    assert (out[..., padding_left: padding_left + length] == x0).all()
    return out


ENTRY = pad1d

torch.manual_seed(0)
INPUTS = [
    # reflect on a signal shorter than the padding: zeros are added on the right first
    (torch.randn(1, 2, 3), (6, 7), 'reflect'),
    # the right padding alone cannot cover the shortfall: zeros on the left as well
    (torch.randn(1, 2, 2), (8, 1), 'reflect'),
    # reflect on a signal long enough: F.pad alone
    (torch.randn(1, 2, 16), (6, 10), 'reflect'),
    # constant padding, the default and a given value
    (torch.randn(2, 5), (2, 3)),
    (torch.randn(1, 2, 6), (1, 3), 'constant', 0.5),
    # a NaN in the signal: the middle of the output no longer equals the input, the assert fails
    (torch.tensor([[[0.0, float('nan'), 1.0, 2.0]]]), (3, 3), 'reflect'),
]
