"""vector-quantize-pytorch's get_maybe_sync_seed, called by ResidualFSQ.forward when it
drops out the later quantizers in training: it draws a seed on the device
(`torch.randint(0, max_size, ())`), sums it over the processes when distributed, and returns
it as a Python number (`rand_int.item()`), which seeds `random.Random` to pick the layer
after which the residual quantization is dropped: Python values from tensor data, not
fixable by design. A training step quantizes a batch with the residual quantizer, with the
seed drawn or passed in. Shrunk: the residual quantizer's constructor and forward for
last-dimension features; each layer's FSQ to its symmetry-preserving hard-clamped bound and
`codes_to_indices`; no process group (`is_distributed()` is false)."""

from __future__ import annotations

import random
from math import ceil

import torch
import torch.distributed as dist
from torch import int32, nn, tensor
from torch.nn import Module

ORIGIN = "lucidrains/vector-quantize-pytorch: vector_quantize_pytorch/residual_fsq.py: get_maybe_sync_seed"
CATEGORY = "out_of_scope"


def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


def round_up_multiple(num, mult):
    return ceil(num / mult) * mult


def floor_ste(z):
    """ floor with straight through gradients. """
    zhat = z.floor()
    return z + (zhat - z).detach()


def is_distributed():
    return dist.is_initialized() and dist.get_world_size() > 1


def get_maybe_sync_seed(device, max_size = 10_000):
    rand_int = torch.randint(0, max_size, (), device = device)

    if is_distributed():
        dist.all_reduce(rand_int)

    return rand_int.item()


class FSQ(Module):
    def __init__(self, levels, dim = None, preserve_symmetry = True, bound_hard_clamp = True):
        super().__init__()
        self.register_buffer('_levels', tensor(levels, dtype = int32), persistent = False)
        _basis = torch.cumprod(tensor([1] + levels[:-1]), dim = 0, dtype = int32)
        self.register_buffer('_basis', _basis, persistent = False)
        self.codebook_dim = len(levels)
        self.preserve_symmetry = preserve_symmetry
        self.bound_hard_clamp = bound_hard_clamp
        self.has_projections = False

    def symmetry_preserving_bound(self, z, hard_clamp = False):
        """ QL(x) = 2 / (L - 1) * [(L - 1) * (tanh(x) + 1) / 2 + 0.5] - 1 """
        levels_minus_1 = (self._levels - 1)
        scale = 2. / levels_minus_1
        bracket = (levels_minus_1 * (z.clamp(-1., 1.) + 1) / 2.) + 0.5
        bracket = floor_ste(bracket)
        return scale * bracket - 1.

    def _scale_and_shift(self, zhat_normalized):
        return (zhat_normalized + 1.) / (2. / (self._levels - 1))

    def codes_to_indices(self, zhat):
        """ Converts a `code` to an index in the codebook. """
        assert zhat.shape[-1] == self.codebook_dim
        zhat = self._scale_and_shift(zhat)
        return (zhat * self._basis).sum(dim = -1).round().to(int32)

    def forward(self, z):
        codes = self.symmetry_preserving_bound(z, hard_clamp = self.bound_hard_clamp)
        return codes, self.codes_to_indices(codes)


class ResidualFSQ(Module):
    """ Follows Algorithm 1. in https://arxiv.org/pdf/2107.03312.pdf """

    def __init__(
        self,
        *,
        levels: list[int],
        num_quantizers,
        dim = None,
        quantize_dropout = False,
        quantize_dropout_cutoff_index = 0,
        quantize_dropout_multiple_of = 1,
        bound_hard_clamp = True,
    ):
        super().__init__()
        codebook_dim = len(levels)
        dim = default(dim, codebook_dim)

        requires_projection = codebook_dim != dim
        self.project_in = nn.Linear(dim, codebook_dim) if requires_projection else nn.Identity()
        self.project_out = nn.Linear(codebook_dim, dim) if requires_projection else nn.Identity()
        self.has_projections = requires_projection

        self.num_quantizers = num_quantizers

        self.levels = levels
        self.layers = nn.ModuleList([])

        levels_tensor = tensor(levels)
        assert (levels_tensor > 1).all()

        scales = []

        for ind in range(num_quantizers):
            scales.append(levels_tensor.float() ** -ind)
            fsq = FSQ(levels = levels, dim = codebook_dim, preserve_symmetry = True,
                      bound_hard_clamp = bound_hard_clamp)
            self.layers.append(fsq)

        self.register_buffer('scales', torch.stack(scales), persistent = False)

        self.quantize_dropout = quantize_dropout and num_quantizers > 1

        assert quantize_dropout_cutoff_index >= 0

        self.quantize_dropout_cutoff_index = quantize_dropout_cutoff_index
        self.quantize_dropout_multiple_of = quantize_dropout_multiple_of

    def forward(self, x, rand_quantize_dropout_fixed_seed = None):
        num_quant, quant_dropout_multiple_of, device = self.num_quantizers, self.quantize_dropout_multiple_of, x.device

        x = self.project_in(x)

        quantized_out = 0.
        residual = x

        all_indices = []

        should_quantize_dropout = self.training and self.quantize_dropout and torch.is_grad_enabled()

        # sample a layer index at which to dropout further residual quantization
        # also prepare null indices

        if should_quantize_dropout:

            # check if seed is manually passed in

            if not exists(rand_quantize_dropout_fixed_seed):
                rand_quantize_dropout_fixed_seed = get_maybe_sync_seed(device)

            rand = random.Random(rand_quantize_dropout_fixed_seed)

            rand_quantize_dropout_index = rand.randrange(self.quantize_dropout_cutoff_index, num_quant)

            if quant_dropout_multiple_of != 1:
                rand_quantize_dropout_index = round_up_multiple(rand_quantize_dropout_index + 1, quant_dropout_multiple_of) - 1

            null_indices = torch.full(x.shape[:2], -1., device = device, dtype = torch.long)

        for quantizer_index, (layer, scale) in enumerate(zip(self.layers, self.scales)):

            if should_quantize_dropout and quantizer_index > rand_quantize_dropout_index:
                all_indices.append(null_indices)
                continue

            quantized, indices = layer(residual / scale)

            quantized = quantized * scale

            residual = residual - quantized.detach()
            quantized_out = quantized_out + quantized

            all_indices.append(indices)

        quantized_out = self.project_out(quantized_out)

        all_indices = torch.stack(all_indices, dim = -1)

        return quantized_out, all_indices


class TrainStep(Module):
    def __init__(self):
        super().__init__()
        self.rfsq = ResidualFSQ(levels = [3, 5], num_quantizers = 4, dim = 3,
                                quantize_dropout = True, quantize_dropout_cutoff_index = 1,
                                quantize_dropout_multiple_of = 2)

    def forward(self, x, seed = None):
        with torch.enable_grad():
            quantized, indices = self.rfsq(x, rand_quantize_dropout_fixed_seed = seed)
            loss = (quantized - x).pow(2).mean()
        return quantized.detach(), indices, loss.detach()


ENTRY = TrainStep


def reset():
    torch.manual_seed(0)


torch.manual_seed(0)
INPUTS = [
    (torch.randn(2, 4, 3),),
    (torch.randn(2, 4, 3), 3),
]
