"""kornia's gamma correction: gamma and gain, floats turned into tensors or per-sample tensors,
are checked for negative entries (`if (gamma < 0.0).any(): raise ValueError(f"Gamma must be
non-negative. Got {gamma}")`, the same for gain): guards whose messages format the tensors."""

from typing import Union

import torch
from torch import Tensor

ORIGIN = "kornia/kornia: kornia/enhance/adjust.py: adjust_gamma"
CATEGORY = "trap"


def adjust_gamma(input: Tensor, gamma: Union[float, Tensor], gain: Union[float, Tensor] = 1.0) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"Input type is not a Tensor. Got {type(input)}")

    if not isinstance(gamma, (float, Tensor)):
        raise TypeError(f"The gamma should be a positive float or Tensor. Got {type(gamma)}")

    if not isinstance(gain, (float, Tensor)):
        raise TypeError(f"The gain should be a positive float or Tensor. Got {type(gain)}")

    if isinstance(gamma, float):
        gamma = Tensor([gamma])

    if isinstance(gain, float):
        gain = Tensor([gain])

    gamma = gamma.to(input.device).to(input.dtype)
    gain = gain.to(input.device).to(input.dtype)

    if (gamma < 0.0).any():
        raise ValueError(f"Gamma must be non-negative. Got {gamma}")

    if (gain < 0.0).any():
        raise ValueError(f"Gain must be non-negative. Got {gain}")

    for _ in range(len(input.shape) - len(gamma.shape)):
        gamma = torch.unsqueeze(gamma, dim=-1)

    for _ in range(len(input.shape) - len(gain.shape)):
        gain = torch.unsqueeze(gain, dim=-1)

    # Apply the gamma correction
    x_adjust: Tensor = gain * torch.pow(input, gamma)

    # Truncate between pixel values
    out: Tensor = torch.clamp(x_adjust, 0.0, 1.0)

    return out


ENTRY = adjust_gamma
torch.manual_seed(0)
INPUTS = [
    (torch.rand(2, 1, 3, 3), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.5])),
    (torch.rand(2, 1, 3, 3), 0.5),
    (torch.rand(2, 1, 3, 3), torch.tensor([1.0, -2.0])),
    (torch.rand(2, 1, 3, 3), 1.5, torch.tensor([-1.0, 0.5])),
]
