"""AdamP's projection step: for each view of a weight (per channel, then whole layer), if the
gradient is nearly orthogonal to the weight (`if cosine_sim.max() < delta /
math.sqrt(param_view.size(1)):`), the radial part of the update is removed in place, the
cautious mask is applied, and the function returns early with the reduced weight-decay
ratio (a Python float chosen by the branch)."""

import math

import torch
import torch.nn.functional as F

ORIGIN = "huggingface/pytorch-image-models: timm/optim/adamp.py: projection"
CATEGORY = "where"


def _channel_view(x) -> torch.Tensor:
    return x.reshape(x.size(0), -1)


def _layer_view(x) -> torch.Tensor:
    return x.reshape(1, -1)


def projection(p, grad, perturb, delta: float, wd_ratio: float, eps: float, caution: bool = False):
    wd = 1.
    expand_size = (-1,) + (1,) * (len(p.shape) - 1)
    for view_func in [_channel_view, _layer_view]:
        param_view = view_func(p)
        grad_view = view_func(grad)
        cosine_sim = F.cosine_similarity(grad_view, param_view, dim=1, eps=eps).abs_()

        # FIXME this is a problem for PyTorch XLA
        if cosine_sim.max() < delta / math.sqrt(param_view.size(1)):
            p_n = p / param_view.norm(p=2, dim=1).add_(eps).reshape(expand_size)
            perturb -= p_n * view_func(p_n * perturb).sum(dim=1).reshape(expand_size)

            if caution:
                # Spherical Cautious Optimizer Logic
                grad_radial = p_n * view_func(p_n * grad).sum(dim=1).reshape(expand_size)
                grad_perp = grad - grad_radial

                mask = (perturb * grad_perp > 0).to(grad.dtype)
                mask.div_(mask.mean().clamp_(min=1e-3))
                perturb.mul_(mask)

            wd = wd_ratio
            return perturb, wd

    if caution:
        # Standard Cautious Optimizer Logic for non-projected parameters
        mask = (perturb * grad > 0).to(grad.dtype)
        mask.div_(mask.mean().clamp_(min=1e-3))
        perturb.mul_(mask)

    return perturb, wd


def _orthogonal_to(p, g):
    """A gradient with each row orthogonal to the weight's row (scale-invariant weights)."""
    return g - (g * p).sum(1, keepdim=True) / (p * p).sum(1, keepdim=True) * p


ENTRY = projection
torch.manual_seed(0)
_P = torch.randn(3, 4)
_G = torch.randn(3, 4)
INPUTS = [
    (_P, _orthogonal_to(_P, _G), torch.randn(3, 4), 0.1, 0.1, 1e-8, False),
    (_P, _orthogonal_to(_P, _G), torch.randn(3, 4), 0.1, 0.1, 1e-8, True),
    (_P, _G, torch.randn(3, 4), 0.1, 0.1, 1e-8, False),
    (_P, _G, torch.randn(3, 4), 0.1, 0.1, 1e-8, True),
]
