"""[Scalar]'s captured reads: a Python scalar read from a tensor (``.item()``, ``int()``,
``float()``) that becomes a size, a divisor or a factor, kept in the graph by tracing its
frame with Dynamo's ``capture_scalar_outputs``.

Mended code reads the scalar through ``captured_item`` (``captured_int``,
``captured_float``), which reads it exactly as written. Where Dynamo,
tracing a frame without the option, breaks the graph inside such a read, the read asks for
it (``on_break``, as Dynamo logs the break, before anything is compiled): the trace stops,
and the frame conversion (``conversion.py``) converts the frame again with the option on,
for that frame only (its later conversions, recompiles, too). A read Dynamo traces without
a break (with ``fullgraph=True``, or of a tensor it holds as a constant) asks for nothing.
A conversion that fails with the option on (Dynamo cannot guard on a captured value, a
backend cannot compile it) is converted once more without it: the read then breaks the
graph as the original's does. Nothing runs twice: a failed conversion runs no user code.
"""

from __future__ import annotations

import sys

from . import state
from .tracing import in_runtime


class CaptureWanted(Exception):
    """Raised while tracing where a captured read breaks the graph in a frame traced without
    ``capture_scalar_outputs``: the frame conversion converts the frame again with it."""


# The captured reads, by name: a graph break inside one of them is the read's.
_READERS = ("captured_item", "captured_int", "captured_float")


def captured_item(value):
    """``value.item()``, captured in the graph while compiling where it breaks it (see the
    module)."""
    return value.item()


def captured_int(value):
    """``int(value)``, captured in the graph while compiling where it breaks it."""
    return int(value)


def captured_float(value):
    """``float(value)``, captured in the graph while compiling where it breaks it."""
    return float(value)


def on_break(translator, exc) -> None:
    """Called as Dynamo logs a graph break, before it compiles anything for it: a break
    inside a captured read, in a frame traced without the option that has not failed with
    it, raises ``CaptureWanted``. A read Dynamo keeps in the graph without the option (a
    constant's) never asks: the option is only ever on where the original breaks."""
    if not state.conversion_retries:
        return
    try:
        from torch._dynamo import config

        if config.capture_scalar_outputs:
            return
        root = translator.output.root_tx.f_code
        stack = list(getattr(exc, "real_stack", None) or ())
    except Exception:  # noqa: BLE001 (another torch: the break stays)
        return
    if id(root) in state.capture_refused:
        return
    # Dynamo names the option in a break it removes (not in a floating list's, say)
    fixable = "capture_scalar_outputs" in f"{getattr(exc, 'gb_type', '')} {exc}"
    if fixable and any(in_runtime(f.filename) and f.name in _READERS for f in stack):
        raise CaptureWanted(root.co_name)


def wanted(error: BaseException) -> bool:
    """Whether a failed conversion was stopped by a captured read (``CaptureWanted``, which
    Dynamo wraps in its own error)."""
    seen = set()
    cause: "BaseException | None" = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, CaptureWanted):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def options_for(code):
    """The config patch for converting ``code``: scalar capture for a frame that asked for
    it and did not fail with it, else None."""
    key = id(code)
    if key not in state.capture_frames or key in state.capture_refused:
        return None
    config = sys.modules["torch._dynamo.config"]
    return config.patch(capture_scalar_outputs=True)
