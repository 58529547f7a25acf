"""[Scalar]: a Python scalar read from a tensor (``.item()``, ``float()``, ``int()``,
``bool()``) that mended code keeps as a 0-d tensor while compiling, so the comparisons it
feeds stay in the graph (``item_later``, ``item_isinstance``, ``item_now``); and
``item_compare``, a condition's comparison of such a read, exact where torch's is Python's.
"""

from __future__ import annotations

import operator
import sys

from .tracing import _is_tensor, _one_element, _plain_tensor, is_compiling


_COMPARISONS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


# How mended conditions read a Python scalar from a tensor (item_compare's `read`).
_READS = {"item": lambda value: value.item(), "float": float, "int": int, "bool": bool}


def item_compare(value, op, other, read="item"):
    """``value.item() <op> other`` (``read`` "float": ``float(value) <op> other``; "int":
    ``int(value) <op> other``) for mended conditions: a bool tensor while compiling where that
    is exactly Python's comparison, else the original comparison itself.

    Exact, for a one-element tensor and a Python number: a floating ``value`` read with
    ``.item()`` or ``float()``, or any real ``value`` read with ``float()`` (torch's int64 to
    float64 conversion rounds as Python's ``float(int)`` does), compared in float64 with a
    number that float64 holds exactly (a float, an int up to 2**53); an integer or bool
    ``value`` read with ``.item()`` or ``int()``, compared in int64, with an int or bool that
    int64 holds. Anything else (an integer tensor against a float, which torch would compare
    in float32; ``int()`` of a floating tensor, which truncates and raises on NaN) returns
    the original comparison, a Python bool: a graph break while compiling, as in the
    original. Every test is resolved while tracing.
    """
    compare = _COMPARISONS[op]
    if is_compiling() and _one_element(value) and not value.is_complex():
        kind = type(other)
        exact_number = kind is float or (kind in (int, bool) and abs(other) <= 2**53)
        floating = value.is_floating_point()
        if exact_number and (read == "float" or (floating and read == "item")):
            return compare(value.reshape(()).double(), other)
        in_int64 = kind in (int, bool) and -(2**63) <= other < 2**63
        if not floating and read in ("item", "int") and in_int64:
            return compare(value.reshape(()).long(), other)
    return compare(_READS[read](value), other)


def item_later(value, read="item"):
    """``value.item()`` (``read`` "int": ``int(value)``, "float": ``float(value)``, "bool":
    ``bool(value)``) for a scalar the program only compares with ints, tests with ``isinstance`` and reads in the
    bodies of guards (a held scalar: ``n = mask.sum().item()``, then ``if x.shape[0] != n:
    raise ...``).

    Not compiling: exactly the original read. Compiling, with a plain one-element tensor, a
    0-d copy of it that holds the scalar exactly: read with ``bool()``, whether it is nonzero
    (a bool tensor; NaN is true, as for Python); read with ``float()``, any real dtype as
    float64 (torch converts int64 to float64 rounding as Python's ``float(int)`` does);
    otherwise a bool tensor as it is (read with ``int()``: as int64), any other integer dtype
    as int64, and a floating one read with ``.item()`` as float64 (the double ``.item()``
    returns). The comparisons that follow are then tensors in the graph instead of a graph
    break here; each gives exactly what the scalar gives against an int below 2**53 (what
    sema lets a held scalar be compared with), since torch compares in int64 or float64
    there; ``item_isinstance`` and ``item_now`` answer the other uses as the scalar would. A
    copy, since the program may change the tensor in place before a comparison reads it.
    Anything else (``int()`` of a floating tensor, which truncates and raises on NaN; uint64
    and complex; more than one element, where the read raises) reads the scalar now, as the
    original.
    """
    if is_compiling() and _plain_tensor(value) and value.numel() == 1:
        torch = sys.modules["torch"]
        held = value.detach().reshape(())
        integer = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
        floating = value.is_floating_point()
        if read == "bool" and (value.dtype in integer or floating):
            return held != 0
        if read == "float" and (value.dtype in integer or floating):
            return held.to(torch.float64, copy=True)
        if value.dtype == torch.bool and read == "item":
            return held.clone()
        if value.dtype in integer:
            return held.to(torch.int64, copy=True)
        if floating and read == "item":
            return held.to(torch.float64, copy=True)
    return _READS[read](value)


def item_isinstance(value, classinfo) -> bool:
    """``isinstance(value, classinfo)`` for a held scalar (``item_later``): of a held tensor,
    what ``isinstance`` says of the scalar it stands for (a bool, an int or a float, by its
    dtype), with the same errors for a bad ``classinfo``. Resolved while tracing."""
    if _is_tensor(value):
        torch = sys.modules["torch"]
        if value.dtype == torch.bool:
            return isinstance(False, classinfo)
        return isinstance(0.0 if value.is_floating_point() else 0, classinfo)
    return isinstance(value, classinfo)


def item_now(value):
    """A held scalar (``item_later``) where the program needs the Python scalar itself (in the
    body of a guard, which runs eagerly where it fails): the scalar read now from a held
    tensor; any other value as it is."""
    return value.item() if _is_tensor(value) else value


# The longest range ``static_range_ok`` lets mended code build in Python: the lists it
# stands for are dimensions and small index lists, and a huge ``torch.arange`` fails with
# torch's own error, which the original must raise.
_RANGE_LIMIT = 1 << 16


def static_range_ok(*bounds) -> bool:
    """Whether ``torch.arange(*bounds).tolist()`` may be read as ``list(range(*bounds))``:
    while compiling, every bound is exactly an ``int`` (not a bool, a float or a tensor) and
    the range is no longer than ``_RANGE_LIMIT``. Then both give the same Python ints, and
    Dynamo, which breaks on ``.tolist()`` of any tensor, has a constant list instead.
    Eagerly it is False: the original reads the tensor. Resolved while tracing: no graph
    break, nothing in the graph."""
    if not is_compiling():
        return False
    if not all(type(bound) is int for bound in bounds):
        return False
    return len(range(*bounds)) <= _RANGE_LIMIT
