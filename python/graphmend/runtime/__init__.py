"""Runtime support for mended code.

Mended source imports this module once, as ``import graphmend.runtime as __graphmend_rt__``
(inserted after the module docstring and ``from __future__`` imports), and calls the
helpers below where the mender rewrote a graph break:

* ``defer`` / ``defer_format`` ([Defer]) replace ``print``, ``logger.<level>`` and
  ``warnings.warn`` calls. Outside compilation they call the callee at once (eager behaviour
  is exactly the original's). While TorchDynamo traces, they append a record to a list
  instead, with tensors snapshotted, so the traced region has no side effect and no break.
* ``flush`` replays the records in order. **The compile boundary must call it** after the
  compiled callable returns *or raises*, from eager code (a ``try``/``finally`` around the
  call, never inside the traced function: a ``try``/``finally`` there makes Dynamo drop the
  whole frame)::

      try:
          out = compiled(*args, **kwargs)
      except RuntimeError as exc:
          original = runtime.translate(exc)
          if original is None:
              raise
          raise original from None
      finally:
          runtime.flush()

* ``guard`` ([Trap]) replaces ``if <tensor cond>: raise E("msg")``. Outside compilation it
  raises ``E("msg")`` when ``bool(cond)`` is true (exactly the original). While compiling it
  emits ``torch._assert_async`` with a token that names ``E`` and ``"msg"``; ``translate``
  turns the resulting ``RuntimeError`` back into ``E("msg")`` at the boundary.
* ``check_assert`` ([Trap]) replaces the condition of a tensor ``assert`` the same way, so
  a failing assert in compiled code raises ``AssertionError`` as it does eagerly.
* ``call_now`` routes a print the mender could not defer: it replays the pending records
  first, then prints (a graph break, as the original), so the output keeps its order.
* ``where_ok`` / ``cond`` ([Where]) select between ``torch.where`` / ``torch.cond`` and the
  original branch.
* ``experts_hit`` / ``routed_where`` / ``routed_index_add_`` (``moe.py``) run a routed
  mixture-of-experts loop with static shapes while compiling, when every expert is
  row-wise (``rowwise_experts``, ``register_rowwise``) and the loop is small enough for the
  static form to pay (``set_padded_rows_limit``).

The runtime's state is all in ``state.py``: chiefly the record list (``pending()`` shows it,
``discard()`` drops it). Dynamo applies a traced region's appends only when its graph completes: records
of the graphs that ran before a failure are replayed by the boundary's ``flush`` before the
exception propagates, as the original printed them before raising; a ``guard`` that has
records pending in its own region is recorded after them behind a boundary (``flush`` then
raises in order), and keeps its Python branch (one graph break) without one, so they are
not lost.

Known limits: the record list is shared by all threads (concurrent compiled calls may
interleave their output); a warning turned into an error by a warnings filter raises at
``flush`` instead of at the call.

Nothing here modifies user objects: records hold clones of tensors and shallow copies of
lists, tuples and dicts; replay calls the recorded callee with those.

The package is split by construct: ``defer`` and ``records`` ([Defer] and the replay of its
records), ``trap`` ([Trap], ``rerun_if``), ``predicate`` ([Where], torch.cond),
``cond_trace`` (torch.cond sites Dynamo cannot trace run their original statement), ``scalar``
and ``capture`` ([Scalar]), ``conversion`` (Dynamo's frame conversion, retried for both), ``masked`` ([MaskedReduce]), ``moe`` (routed expert loops with static shapes),
``held`` (the registries a mended function reads items of, through their mended items),
over ``sites`` (the frames a call names), ``state`` and ``tracing``. It imports nothing of
GraphMend but the compiled core: it runs inside the user's process. The frame
filters test the package's folder (``tracing.in_runtime``), so a helper may move between its
modules freely.
"""

from __future__ import annotations

from . import state
from .defer import (
    defer,
    defer_branch,
    defer_format,
    defer_format_when,
    defer_format_within,
    defer_when,
    defer_within,
    pop_condition,
    push_condition,
)
from .masked import masked_assign_, masked_assign_ok, masked_reduce
from .moe import (
    experts_hit,
    register_rowwise,
    routed_index_add_,
    routed_where,
    rowwise_experts,
    set_padded_rows_limit,
)
from .predicate import (
    cond,
    cond_ok,
    cond_safe,
    contains,
    index_where,
    index_where_ok,
    masked_fill_ok,
    masked_index_ok,
    not_contains,
    select,
    selecting,
    update_where_ok,
    python_flags,
    python_ints,
    python_numbers,
    record_ok,
    same_method,
    tensors,
    where_ok,
)
from .capture import captured_float, captured_int, captured_item
from .cond_trace import cond_on
from .conversion import install as _install_retry
from .records import call_now, discard, flush, pending
from .scalar import item_compare, item_isinstance, item_later, item_now, static_range_ok
from .sites import register_boundary
from .state import Record
from .tracing import _inline_when_called, is_compiling
from .trap import (
    RERUN_TOKEN,
    TRAP_TOKEN_PREFIX,
    check_assert,
    check_tensor_all,
    guard,
    guard_formatted,
    is_rerun,
    random_state,
    rerun,
    rerun_if,
    rerun_unless,
    translate,
)

# Mended code calls the first group as ``__graphmend_rt__.<name>`` (the rewrites in
# src/rewrite write them; tests/python/test_layers.py checks both against this list), and so
# does code mended and cached by an earlier build: none of them may go.
__all__ = [
    "defer",
    "defer_format",
    "defer_within",
    "defer_format_within",
    "defer_branch",
    "defer_when",
    "defer_format_when",
    "push_condition",
    "pop_condition",
    "call_now",
    "guard",
    "guard_formatted",
    "check_assert",
    "check_tensor_all",
    "rerun_if",
    "rerun_unless",
    "tensors",
    "python_numbers",
    "python_ints",
    "static_range_ok",
    "python_flags",
    "same_method",
    "contains",
    "not_contains",
    "where_ok",
    "record_ok",
    "cond_ok",
    "cond_safe",
    "cond",
    "cond_on",
    "masked_fill_ok",
    "masked_index_ok",
    "update_where_ok",
    "select",
    "selecting",
    "index_where_ok",
    "index_where",
    "masked_reduce",
    "masked_assign_ok",
    "masked_assign_",
    "item_compare",
    "item_later",
    "item_isinstance",
    "item_now",
    "captured_item",
    "captured_int",
    "captured_float",
    "is_compiling",
    # The compile boundary's (boundary.py) and the command line's.
    "flush",
    "discard",
    "pending",
    "translate",
    "is_rerun",
    "rerun",
    "random_state",
    "register_boundary",
    "state",
    "Record",
    "TRAP_TOKEN_PREFIX",
    "RERUN_TOKEN",
    # Routed mixture-of-experts dispatch with static shapes (moe.py), for a mended expert
    # loop, and register_rowwise for a user's own expert class.
    "experts_hit",
    "set_padded_rows_limit",
    "routed_where",
    "routed_index_add_",
    "rowwise_experts",
    "register_rowwise",
]

_inline_when_called()
_install_retry()
