"""Asteroid's feature-wise global layer normalization (FeatsGlobLN): each channel is
normalised over its frames; the dimensions to normalise over are computed as a tensor and
read back as a Python list (`dims: List[int] = torch.arange(2, len(x.shape)).tolist()`,
written so for TorchScript), then the input is z-normalised over them and scaled per
channel. `_feat_glob_norm` is wrapped in `script_if_tracing`, which calls the function as it
is outside tracing. A Python value read from a tensor: not fixable by design."""

import functools
from typing import List

import torch
from torch import nn

ORIGIN = "asteroid-team/asteroid: asteroid/masknn/norms.py: _feat_glob_norm"
CATEGORY = "out_of_scope"


def is_tracing():
    return torch._C._is_tracing()


def script_if_tracing(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not is_tracing():
            # Not tracing, don't do anything
            return fn(*args, **kwargs)

        compiled_fn = torch.jit.script(wrapper.__original_fn)  # type: ignore
        return compiled_fn(*args, **kwargs)

    wrapper.__original_fn = fn  # type: ignore
    wrapper.__script_if_tracing_wrapper = True  # type: ignore

    return wrapper


def z_norm(x, dims: List[int], eps: float = 1e-8):
    mean = x.mean(dim=dims, keepdim=True)
    var2 = torch.var(x, dim=dims, keepdim=True, unbiased=False)
    value = (x - mean) / torch.sqrt((var2 + eps))
    return value


@script_if_tracing
def _feat_glob_norm(x, eps: float = 1e-8):
    dims: List[int] = torch.arange(2, len(x.shape)).tolist()
    return z_norm(x, dims, eps)


class _LayerNorm(nn.Module):
    """Layer Normalization base class."""

    def __init__(self, channel_size):
        super(_LayerNorm, self).__init__()
        self.channel_size = channel_size
        self.gamma = nn.Parameter(torch.ones(channel_size), requires_grad=True)
        self.beta = nn.Parameter(torch.zeros(channel_size), requires_grad=True)

    def apply_gain_and_bias(self, normed_x):
        """Assumes input of size `[batch, chanel, *]`."""
        return (self.gamma * normed_x.transpose(1, -1) + self.beta).transpose(1, -1)


class FeatsGlobLN(_LayerNorm):
    """Feature-wise global Layer Normalization (FeatsGlobLN).
    Applies normalization over frames for each channel."""

    def __init__(self, channel_size=4):
        super().__init__(channel_size)

    def forward(self, x, EPS: float = 1e-8):
        value = _feat_glob_norm(x, eps=EPS)
        return self.apply_gain_and_bias(value)


ENTRY = FeatsGlobLN
GRAD = True
torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 4, 6),),
    (torch.randn(3, 4, 5, 2),),
]
