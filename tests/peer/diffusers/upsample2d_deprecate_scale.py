"""Upsample2D.forward: passing the removed `scale` argument calls diffusers' `deprecate`,
a helper that warns with `warnings.warn(..., FutureWarning, stacklevel=3)`; the rest is the
nearest-neighbour upsampling and a convolution. torch 2.13's Dynamo traces the warning
without a break."""

import warnings

import torch
from torch import nn

ORIGIN = "huggingface/diffusers: src/diffusers/models/upsampling.py: Upsample2D.forward"
CATEGORY = "no_break"


def deprecate(attribute, version_name, message, standard_warn=True, stacklevel=2):
    deprecated_kwargs = None
    warning = None
    if warning is None:
        warning = f"`{attribute}` is deprecated and will be removed in version {version_name}."
    warnings.warn(warning + " " + message, FutureWarning, stacklevel=stacklevel + 1)


class Upsample2D(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 3, padding=1)

    def forward(self, hidden_states, output_size=None, *args, **kwargs):
        if len(args) > 0 or kwargs.get("scale", None) is not None:
            deprecation_message = "The `scale` argument is deprecated and will be ignored. Please remove it, as passing it will raise an error in the future. `scale` should directly be passed while calling the underlying pipeline component i.e., via `cross_attention_kwargs`."
            deprecate("scale", "1.0.0", deprecation_message)

        hidden_states = hidden_states * 1.0
        if hidden_states.shape[0] >= 64:
            hidden_states = hidden_states.contiguous()

        if output_size is None:
            hidden_states = nn.functional.interpolate(hidden_states, scale_factor=2.0, mode="nearest")
        else:
            hidden_states = nn.functional.interpolate(hidden_states, size=output_size, mode="nearest")

        hidden_states = self.conv(hidden_states)
        return hidden_states


ENTRY = Upsample2D
torch.manual_seed(0)
INPUTS = [
    (torch.randn(1, 2, 3, 3), None, 0.5),
    (torch.randn(1, 2, 3, 3),),
]
