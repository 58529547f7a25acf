"""[Scalar]'s captured reads: a Python scalar read from a tensor (``.item()``, ``int()``,
``float()``) that becomes a size, a divisor or a factor, kept in the graph by tracing its
frame with Dynamo's ``capture_scalar_outputs``.

Mended code reads the scalar through ``captured_item`` (``captured_int``,
``captured_float``), which reads it exactly as written. While Dynamo traces a frame without
the option, the read asks for it (``_capture_on``, resolved while tracing): the trace stops
before it has run anything, and the frame conversion (``conversion.py``) converts the
frame again with the option on, for that frame only (its later conversions, recompiles,
too). A conversion that fails with the option on (Dynamo cannot guard on a captured value,
a backend cannot compile it) is converted once more without it: the read then breaks the
graph as the original's does. Nothing runs twice: a failed conversion runs no user code.
"""

from __future__ import annotations

import sys

from . import state
from .tracing import _asked_while_tracing, _is_tensor, is_compiling


class CaptureWanted(Exception):
    """Raised while tracing by a captured read in a frame traced without
    ``capture_scalar_outputs``: the frame conversion converts the frame again with it."""


def captured_item(value):
    """``value.item()``, captured in the graph while compiling (see the module)."""
    if is_compiling() and _is_tensor(value):
        _capture_on()
    return value.item()


def captured_int(value):
    """``int(value)``, captured in the graph while compiling (see the module)."""
    if is_compiling() and _is_tensor(value):
        _capture_on()
    return int(value)


def captured_float(value):
    """``float(value)``, captured in the graph while compiling (see the module)."""
    if is_compiling() and _is_tensor(value):
        _capture_on()
    return float(value)


@_asked_while_tracing
def _capture_on() -> bool:
    """Whether the frame being traced captures scalars: with ``fullgraph=True`` (Dynamo
    captures them then), with the option on, or never for a frame whose trace failed with
    it. Otherwise raises ``CaptureWanted`` (the conversion retries with the option)."""
    try:
        from torch._dynamo import config
        from torch._dynamo.symbolic_convert import InstructionTranslator

        tx = InstructionTranslator.current_tx()
        root = tx.output.root_tx.f_code
    except Exception:  # noqa: BLE001 (no translator: a non-strict export, or another torch)
        return False
    if tx.one_graph or config.capture_scalar_outputs:
        return True
    if not state.conversion_retries or id(root) in state.capture_refused:
        return False
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
