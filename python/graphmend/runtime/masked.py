"""[MaskedReduce]: a boolean-mask selection reduced where it is made (``x[m].sum()``),
computed densely while compiling: the unselected elements filled with the reduction's
identity, then the reduction over the whole tensor, whose shape is static where the
selection's is data-dependent (a graph break).

The dense result is exactly the selection's only where the reduction is exact in any order
and with any number of identity elements: any, all and count_nonzero for every dtype (no
arithmetic; but any and all of uint8, which eager returns as uint8 and Inductor as bool),
sum, prod, max and min for bool and integer dtypes (integer addition and multiplication
wrap modulo 2**64 and are associative and commutative; max and min pick a value, and with no floating type there is no -0.0/0.0 tie whose pick depends on position).
An empty selection has no max or min: torch raises, and the dense form raises the same
through an in-graph trap (``trap.guard``). Everything else (floating sums, a mask that is
not a bool tensor of the tensor's shape and device, a tensor subclass) and every eager call
runs ``x[m].<op>()`` itself.
"""

from __future__ import annotations

import sys

from .tracing import _plain_tensor, is_compiling
from .trap import guard

# The fill value of each reduction for a bool tensor and an integer one (None: the dtype's
# lowest or highest value).
_IDENTITY = {
    "sum": 0,
    "prod": 1,
    "any": 0,
    "all": 1,
    "count_nonzero": 0,
    "max": None,
    "min": None,
}
_ANY_DTYPE = ("any", "all", "count_nonzero")
_EXACT_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64")


def _dense_ok(x, mask, op: str) -> bool:
    """Whether the dense form of ``x[mask].<op>()`` is exactly the original's, while
    compiling. Every test is a static fact under Dynamo: no graph break, nothing in the
    graph."""
    if not is_compiling() or op not in _IDENTITY:
        return False
    if not (_plain_tensor(x) and _plain_tensor(mask)):
        return False
    torch = sys.modules["torch"]
    if mask.dtype != torch.bool or mask.shape != x.shape or mask.device != x.device:
        return False
    if op in _ANY_DTYPE:
        # Eager any/all of uint8 return uint8, Inductor's a bool.
        return x.dtype != torch.uint8 or op == "count_nonzero"
    return str(x.dtype).replace("torch.", "") in _EXACT_DTYPES


def _fill_value(x, op: str):
    value = _IDENTITY[op]
    if value is not None:
        return value
    torch = sys.modules["torch"]
    if x.dtype == torch.bool:
        return op == "min"  # False below every bool for max, True above every bool for min
    info = torch.iinfo(x.dtype)
    return info.min if op == "max" else info.max


def _empty_message(op: str) -> str:
    """torch's error for the max or min of an empty tensor (tests compare it with torch's)."""
    return (
        f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
        "Specify the reduction dim with the 'dim' argument."
    )


def masked_reduce(x, mask, op: str):
    """``x[mask].<op>()``, with ``op`` one of sum, prod, any, all, count_nonzero, max, min.

    While compiling, where the dense form is exact (``_dense_ok``):
    ``x.masked_fill(~mask, identity).<op>()``, which has the original's dtype (the same
    ``x``), value and, for max and min of an empty selection, exception (RuntimeError with
    torch's message, raised by a trap). Otherwise, and eagerly, ``x[mask].<op>()`` itself.
    """
    if not _dense_ok(x, mask, op):
        return getattr(x[mask], op)()
    torch = sys.modules["torch"]
    unselected = torch.logical_not(mask)
    if op in ("max", "min"):
        guard(torch.logical_not(mask.any()), RuntimeError, _empty_message(op))
    return getattr(x.masked_fill(unselected, _fill_value(x, op)), op)()


def masked_assign_ok(mask, target, *sources, numbers=(), guarded: bool = False) -> bool:
    """Whether ``target[mask] = <value>``, its value computed element by element from
    ``source[mask]`` of each source, may be stored densely with ``masked_assign_``. True
    while compiling when ``mask`` is a bool tensor fitting ``target``'s leading dimensions
    exactly (a boolean index does not broadcast), ``target`` a floating tensor, and every
    source a tensor of ``target``'s shape, dtype and device (so the dense value has the
    target's shape and dtype: the original's index_put_ refuses another dtype), and every
    one of ``numbers`` (the names the value reads outside the selections) a Python int or
    float (a tensor there could broadcast against the selection otherwise). With grad
    mode on, no source may require grad: the dense value is computed on unselected elements
    too, where a gradient of zero through an infinite or NaN partial derivative would give
    NaN. ``guarded``: the store stood under ``if mask.any():``, and runs now whatever the
    mask; grad mode must be off (an update bumps the version counter of a tensor autograd
    may have saved; the mender proves the target one the traced code created). Eagerly,
    and for a tensor subclass, False: the original statement runs. Every test is a static
    fact under Dynamo."""
    if not is_compiling():
        return False
    torch = sys.modules["torch"]
    if guarded and torch.is_grad_enabled():
        return False
    if not (_plain_tensor(mask) and _plain_tensor(target)) or mask.dtype != torch.bool:
        return False
    if not target.is_floating_point() or mask.device != target.device:
        return False
    if not all(type(number) in (int, float) for number in numbers):
        return False
    rank = mask.dim()
    if rank > target.dim() or tuple(mask.shape) != tuple(target.shape[:rank]):
        return False
    for source in sources:
        if not _plain_tensor(source) or source.shape != target.shape:
            return False
        if source.dtype != target.dtype or source.device != target.device:
            return False
        if torch.is_grad_enabled() and source.requires_grad:
            return False
    return True


def masked_assign_(target, mask, value) -> None:
    """``target[mask] = value[mask]`` for a ``value`` of ``target``'s shape (after
    ``masked_assign_ok``): in place, with ``torch.where`` over the whole tensor, the mask
    widened over the trailing dimensions."""
    torch = sys.modules["torch"]
    widened = mask.reshape(tuple(mask.shape) + (1,) * (target.dim() - mask.dim()))
    target.copy_(torch.where(widened, value, target))
