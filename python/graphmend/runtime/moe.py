"""Routed mixture-of-experts dispatch with static shapes (the padded form).

The routed expert loop of the Mixtral family::

    for expert_idx in range(E):                      # or the .tolist() of the experts hit
        expert_layer = self.experts[expert_idx]
        idx, top_x = torch.where(expert_mask[expert_idx])
        if top_x.shape[0] == 0:
            continue
        rows = expert_layer(hidden[top_x]) * weights[top_x, idx, None]
        out.index_add_(0, top_x, rows)

breaks the graph three ways: the ``.tolist()`` of the experts hit, ``torch.where(mask)``
(its size is data) and the emptiness test. Mended, the loop calls ``experts_hit``,
``routed_where`` and ``routed_index_add_``. Not compiling, each is the original call. While
compiling, with every expert row-wise (``rowwise_experts``):

* ``experts_hit`` visits every expert in order: an expert the original skips contributes
  only the padding below, which adds -0.0, the additive identity.
* ``routed_where`` is ``torch.nonzero_static(mask, size=mask.numel(), fill_value=-1)``: the
  routed pairs in the order ``torch.where`` gives them, then ``-1`` up to a static size that
  always holds them all. ``-1`` indexes the last row, so gathers stay in bounds, and the
  emptiness test sees a static size.
* ``routed_index_add_`` adds ``torch.where(index >= 0, src, 0)`` at ``index.clamp(min=0)``:
  a padding row adds exactly -0.0 whatever the expert computed on it (inf and NaN
  included), and the routed rows add in the original order. docs/MENDER.md [Moe] has the
  whole exactness argument and its one condition, that the experts are row-wise.
"""

from __future__ import annotations

import sys

from .tracing import is_compiling

# torch.nn layers whose forward treats each row on its own (the last dimensions of a row
# only): linear maps, element-wise activations, normalisations over the last dimensions.
_ROWWISE = frozenset(
    {
        "Linear", "Bilinear", "Identity", "LayerNorm", "RMSNorm",
        "ReLU", "ReLU6", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "LeakyReLU", "ELU",
        "SELU", "CELU", "Softplus", "Softsign", "Hardswish", "Hardsigmoid", "Hardtanh",
        "Tanhshrink", "LogSigmoid", "GLU", "Softmax", "LogSoftmax",
    }
)  # fmt: skip
# Row-wise only when they draw no random numbers: more rows draw other numbers.
_ROWWISE_WITHOUT_RANDOMNESS = frozenset({"Dropout", "AlphaDropout"})
_CONTAINERS = frozenset({"ModuleList", "Sequential", "ModuleDict"})
# Expert MLPs of transformers whose forward is `down(act(gate(x)) * up(x))` (read in
# transformers 4.52.4 and 5.x; DBRX's with the weights passed in, `act(x @ w1.T) * (x @
# v1.T) @ w2`): row-wise when their layers are.
_KNOWN_EXPERT_MLPS = frozenset(
    {
        "MixtralBlockSparseTop2MLP", "PhimoeBlockSparseTop2MLP", "Qwen2MoeMLP",
        "Qwen3MoeMLP", "OlmoeMLP", "MiniMaxBlockSparseTop2MLP", "DbrxExpertGLU",
    }
)  # fmt: skip
_registered: set[type] = set()


def register_rowwise(kind: type) -> type:
    """Declares the module class ``kind`` row-wise: its forward computes each row of its
    input from that row alone, with no side effect that depends on the number of rows (a
    user's own expert MLP). Usable as a class decorator."""
    _registered.add(kind)
    return kind


def rowwise_experts(*modules) -> bool:
    """Whether each module (an expert, or a container of experts) is known row-wise: every
    submodule a torch.nn layer of ``_ROWWISE`` (dropout in eval mode or with p == 0), a
    container, a transformers expert MLP of ``_KNOWN_EXPERT_MLPS`` or a class given to
    ``register_rowwise``, with no hooks. Anything else (batch norm, attention, a user class
    never registered) is not assumed row-wise. Resolved while tracing: no graph break."""
    return all(_rowwise(module, 0) for module in modules)


def _rowwise(module, depth: int) -> bool:
    torch = sys.modules["torch"]
    if not isinstance(module, torch.nn.Module) or depth > 16:
        return False
    if module._forward_hooks or module._forward_pre_hooks or module._backward_hooks:
        return False
    if not _rowwise_class(module):
        return False
    return all(_rowwise(child, depth + 1) for child in module._modules.values())


def _rowwise_class(module) -> bool:
    kind = type(module)
    name, where = kind.__name__, kind.__module__
    if kind in _registered:
        return True
    if where.startswith("torch.nn.modules."):
        if name in _ROWWISE or name in _CONTAINERS:
            return True
        return name in _ROWWISE_WITHOUT_RANDOMNESS and (not module.training or module.p == 0)
    if where.startswith("transformers.models."):
        return name in _KNOWN_EXPERT_MLPS
    # transformers' activation classes (ACT2FN) are element-wise.
    return where == "transformers.activations"


# The cost rule. The static form runs each expert on ``mask.numel()`` rows (K*N: K experts
# per token, N tokens) where the routed loop runs it on the rows routed to it, so it does E
# times the expert work of the routed loop. That pays while the breaks it removes cost more:
# measured on CPU (the blocks of Mixtral, Qwen2-MoE, Qwen3-MoE, PhiMoE and OLMoE, E = 8,
# K = 2, hidden 64, inner 128; docs/BENCHMARKS.md), the static form is 1.25-1.36x faster at 32
# rows per expert (16 tokens) and 0.92-1.04x at 64 (32 tokens). Decode steps and small
# batches take it; longer prefills keep the routed loop and its breaks. Set it with
# ``set_padded_rows_limit``.
_padded_rows_limit = 32


def set_padded_rows_limit(rows: int) -> int:
    """Sets the most rows per expert (``mask.numel()``) for which a compiled routed loop
    takes the static form; returns the previous limit. 0 keeps every loop routed."""
    global _padded_rows_limit
    previous, _padded_rows_limit = _padded_rows_limit, int(rows)
    return previous


def _padded_pays(rows) -> bool:
    return rows <= _padded_rows_limit


def experts_hit(hit, masks, *experts):
    """``hit.nonzero(as_tuple=True)[0].tolist()`` (``hit`` a vector over the experts), or
    while compiling over row-wise ``experts`` (the modules the loop's rows go through) every
    expert's index in order, where the static form pays for the masks the loop reads
    (``masks[e]``: routed_where decides alike)."""
    if (
        is_compiling()
        and hit.dim() == 1
        and masks.dim() >= 1
        and masks.shape[0] == hit.shape[0]
        and _padded_pays(masks[0].numel())
        and rowwise_experts(*experts)
    ):
        return list(range(hit.shape[0]))
    return hit.nonzero(as_tuple=True)[0].tolist()


def routed_where(mask, *experts):
    """``torch.where(mask)``, or while compiling over row-wise ``experts`` the same indices
    padded with -1 to ``mask.numel()`` (a static size). For a loop that uses the indices
    only to gather rows, to test emptiness and in ``routed_index_add_`` (never ``.tolist()``
    or a count): those are the uses the padding keeps exact."""
    torch = sys.modules["torch"]
    if (
        not is_compiling()
        or mask.dim() == 0
        or not _padded_pays(mask.numel())
        or not rowwise_experts(*experts)
    ):
        return torch.where(mask)
    padded = torch.nonzero_static(mask, size=mask.numel(), fill_value=-1)
    return padded.unbind(1)


def routed_index_add_(out, dim: int, index, source):
    """``out.index_add_(dim, index, source)`` where ``index`` may hold ``routed_where``'s -1
    padding: a padding row adds exactly -0.0 (``torch.where``, not a product, so an inf or
    NaN the expert computed there is dropped)."""
    torch = sys.modules["torch"]
    if not is_compiling():
        return out.index_add_(dim, index, source)
    routed = index >= 0
    shape = [1] * source.dim()
    shape[dim] = -1
    # -0.0 is the additive identity of IEEE floats (+0.0 would turn an accumulated -0.0 to +0.0).
    zero = -0.0 if source.is_floating_point() or source.is_complex() else 0
    identity = torch.full((), zero, dtype=source.dtype, device=source.device)
    kept = torch.where(routed.view(shape), source, identity)
    return out.index_add_(dim, index.clamp(min=0), kept)
