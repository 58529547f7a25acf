"""vector-quantize-pytorch's LatentQuantize.__init__ (disentanglement via latent
quantization): the constructor repeats an integer level over `codebook_dim` (re-raising the
RuntimeError of a negative repeat), registers the loss weights, the levels and their
mixed-radix basis, and reads the codebook size as a Python number (`self.codebook_size =
self._levels.prod().item()`) to build the implicit codebook with
`torch.arange(self.codebook_size)`: Python state from tensor data, not fixable by design.
The values per latent are chosen by each level's parity (`if level % 2 == 1`, a 0-d tensor)
and become parameters when optimised. A step builds the quantizer for the levels it is
given and quantizes a batch with it, with the two losses. Shrunk: the constructor, the
losses and `quantize`; einops' rearrange written as `unsqueeze`."""

from __future__ import annotations
from typing import Callable, List

import torch
import torch.nn.functional as F
from torch import Tensor, int32, nn
from torch.nn import Module
from torch.optim import Optimizer

ORIGIN = "lucidrains/vector-quantize-pytorch: vector_quantize_pytorch/latent_quantization.py: LatentQuantize.__init__"
CATEGORY = "out_of_scope"


class LatentQuantize(Module):
    def __init__(
        self,
        levels: List[int] | int,
        dim: int,
        commitment_loss_weight: float | None = 0.1,
        quantization_loss_weight: float | None = 0.1,
        num_codebooks: int = 1,
        codebook_dim: int = -1,
        keep_num_codebooks_dim: bool | None = None,
        optimize_values: bool | None = True,
        in_place_codebook_optimizer: Callable[
            ..., Optimizer
        ] = None,  # Optimizer used to update the codebook embedding if using learnable_codebook
    ):
        super().__init__()

        self.dim = dim
        self.in_place_codebook_optimizer = in_place_codebook_optimizer
        _levels = torch.tensor(levels, dtype=int32)

        # if levels is an int, use it for all codebooks
        if isinstance(levels, int):
            try:
                _levels = _levels.repeat(codebook_dim)
            except RuntimeError as e:
                raise e
        self.register_buffer(
            "commitment_loss_weight",
            torch.tensor(commitment_loss_weight, dtype=torch.float32),
            persistent=False,
        )
        self.register_buffer(
            "quantization_loss_weight",
            torch.tensor(quantization_loss_weight, dtype=torch.float32),
            persistent=False,
        )
        self.register_buffer("_levels", _levels, persistent=False)

        _basis = torch.cumprod(
            torch.concat([torch.tensor([1], dtype=int32), _levels[:-1]], dim=0), dim=0
        )
        self.register_buffer("_basis", _basis, persistent=False)

        self.codebook_dim = codebook_dim if codebook_dim > 0 else len(_levels)

        effective_codebook_dim = self.codebook_dim * num_codebooks
        self.num_codebooks = num_codebooks
        self.effective_codebook_dim = effective_codebook_dim

        keep_num_codebooks_dim = (
            keep_num_codebooks_dim if keep_num_codebooks_dim else num_codebooks > 1
        )
        assert not (num_codebooks > 1 and not keep_num_codebooks_dim)
        self.keep_num_codebooks_dim = keep_num_codebooks_dim

        has_projections = self.dim != effective_codebook_dim
        self.project_in = (
            nn.Linear(self.dim, effective_codebook_dim)
            if has_projections
            else nn.Identity()
        )
        self.project_out = (
            nn.Linear(effective_codebook_dim, self.dim)
            if has_projections
            else nn.Identity()
        )
        self.has_projections = has_projections

        self.codebook_size = self._levels.prod().item()

        # compute `implicit_codebook` directly to avoid shape mismatch in `indices_to_codes` when `num_codebooks > 1`
        all_indices = torch.arange(self.codebook_size).unsqueeze(-1)
        codes_non_centered = (all_indices // self._basis) % self._levels
        implicit_codebook = self._scale_and_shift_inverse(codes_non_centered)
        self.register_buffer("implicit_codebook", implicit_codebook, persistent=False)

        values_per_latent = [
            torch.linspace(-0.5, 0.5, level)
            if level % 2 == 1
            else torch.arange(level) / level - 0.5
            for level in _levels
        ]  # ensure zero is in the middle and start is always -0.5

        # test, and check whether it would be in the parameters of the model or not
        if optimize_values:
            self.values_per_latent = nn.ParameterList(
                [nn.Parameter(values) for values in values_per_latent]
            )
            if in_place_codebook_optimizer is not None:
                self.in_place_codebook_optimizer = in_place_codebook_optimizer(
                    self.values_per_latent
                )
        else:
            self.values_per_latent = values_per_latent  # are there any scenarios where this would have its gradients updated?

    def quantization_loss(self, z: Tensor, zhat: Tensor, reduce="mean") -> Tensor:
        """Computes the quantization loss."""
        return F.mse_loss(zhat.detach(), z, reduction=reduce)

    def commitment_loss(self, z: Tensor, zhat: Tensor, reduce="mean") -> Tensor:
        """Computes the commitment loss."""
        return F.mse_loss(z.detach(), zhat, reduction=reduce)

    def quantize(self, z: Tensor) -> Tensor:
        """Quantizes z, returns quantized zhat, same shape as z."""

        def distance(x, y):
            return torch.abs(x - y)

        index = torch.stack(
            [
                torch.argmin(
                    distance(z[..., i, None], self.values_per_latent[i]), dim=-1
                )
                for i in range(self.codebook_dim)
            ],
            dim=-1,
        )
        quantize = torch.stack(
            [
                self.values_per_latent[i][index[..., i]]
                for i in range(self.codebook_dim)
            ],
            dim=-1,
        )

        quantize = z + (quantize - z).detach()
        return quantize

    def _scale_and_shift_inverse(self, zhat: Tensor) -> Tensor:
        """normalize zhat to [-0.5, 0.5]"""
        half_width = self._levels // 2
        return (zhat - half_width) / half_width / 2


def quantize_step(z, levels, dim, codebook_dim=-1, optimize_values=True):
    lq = LatentQuantize(levels, dim, codebook_dim=codebook_dim, optimize_values=optimize_values)
    z = lq.project_in(z)
    zhat = lq.quantize(z)
    loss = (lq.quantization_loss(z, zhat) * lq.quantization_loss_weight
            + lq.commitment_loss(z, zhat) * lq.commitment_loss_weight)
    return lq.codebook_size, lq.implicit_codebook, lq.project_out(zhat), loss


ENTRY = quantize_step


def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 3, 2), [3, 4], 2),
    (torch.randn(2, 3, 3), 5, 3, 2, False),
    (torch.randn(2, 3, 2), 4, 2),
]
