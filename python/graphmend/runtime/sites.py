"""The sites of calls: the frame a warning's stacklevel names, found eagerly on the stack or,
while tracing, from Dynamo's inlined frames; and the compile boundary's frames
(``register_boundary``), past which a stacklevel names the boundary's caller.
"""

from __future__ import annotations

import sys
import warnings
import weakref
from typing import Optional

from . import state
from .tracing import _asked_while_tracing, _disabled, in_runtime, mended_tx

# A warning's stacklevel names a frame above the call (``warnings.warn(..., stacklevel=2)`` in
# a helper: the helper's caller). Eagerly that frame is on the stack. While tracing, the
# frames between the call and the compiled frame are Dynamo's inlined calls, the same for
# every run of the graph, so the site is found then and recorded as a constant; a level past
# the compiled frame names the caller of the compile boundary (``_BOUNDARY_CALLER``), found
# at replay. A site neither shows (a module's forward, whose ``Module.__call__`` frames
# Dynamo does not trace) makes the call at once, a graph break, as the original did.

_BOUNDARY_CALLER = "<graphmend: the caller of the compiled call>"


def _warning_level(args, kwargs) -> Optional[int]:
    """The stacklevel of a ``warnings.warn`` call's arguments: 1 when not given, at least 1
    (``warnings`` takes lower levels as 1), None when not an int (``warn`` raises)."""
    level = args[2] if len(args) >= 3 else kwargs.get("stacklevel", 1)
    if not isinstance(level, int):
        return None
    return max(level, 1)


def _at_level_one(args, kwargs):
    """The arguments with the stacklevel 1: the site already names the frame."""
    if len(args) >= 3:
        return (*args[:2], 1, *args[3:]), kwargs
    if "stacklevel" in kwargs:
        return args, {**kwargs, "stacklevel": 1}
    return args, kwargs


_SEP = "\\" if sys.platform == "win32" else "/"


def _internal_frame(frame) -> bool:
    filename = frame.f_code.co_filename
    return (
        in_runtime(filename)
        or f"{_SEP}torch{_SEP}_dynamo{_SEP}" in filename
        or (f"{_SEP}torch{_SEP}compiler{_SEP}" in filename)
    )


def _caller_frame():
    """The frame of the mended function that made the call: the first outside this module
    and Dynamo's own (a call made at once from traced code runs behind ``disable``)."""
    frame = sys._getframe(1)
    while frame is not None and _internal_frame(frame):
        frame = frame.f_back
    return frame


def _next_external(frame):
    """``frame.f_back``, skipping importlib's bootstrap frames, as ``warnings`` does, and the
    frames the original did not have: this module's and Dynamo's (its wrapper stands between
    a compiled function and its caller)."""
    resumed = _resumed_name(frame.f_code.co_name)
    frame = frame.f_back
    while frame is not None and (
        _internal_frame(frame)
        or ("importlib" in frame.f_code.co_filename and "_bootstrap" in frame.f_code.co_filename)
    ):
        frame = frame.f_back
    # A function Dynamo resumed after a graph break runs in two frames (or more): the
    # resume function's, called from the original's; the original had one.
    while (
        resumed is not None
        and frame is not None
        and resumed
        in (
            frame.f_code.co_name,
            _resumed_name(frame.f_code.co_name),
        )
    ):
        frame = _next_external(frame)
    return frame


_RESUME_PREFIX = "torch_dynamo_resume_in_"


def _resumed_name(name: str) -> Optional[str]:
    """The function a Dynamo resume function (``torch_dynamo_resume_in_<name>_at_<line>``)
    resumes, else None."""
    if not name.startswith(_RESUME_PREFIX):
        return None
    return name[len(_RESUME_PREFIX) :].rsplit("_at_", 1)[0]


def _frame_site(frame, level: int):
    """The site and globals ``warnings`` gives a warning issued at ``frame`` with
    ``stacklevel=level``: the frame ``level - 1`` calls up, or ``sys`` line 1 past the top."""
    for _ in range(level - 1):
        if frame is None:
            break
        frame = _next_external(frame)
    if frame is None:
        return ("sys", 1, "<module>"), sys.__dict__
    return (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name), frame.f_globals


_caller_frame = _disabled(_caller_frame)


def _boundary_caller():
    """The frame that called the innermost running compile boundary (None: none runs)."""
    frame = sys._getframe(1)
    while frame is not None and id(frame.f_code) not in state.boundary_codes:
        frame = frame.f_back
    return None if frame is None else frame.f_back


def _traced_site(site, callee, args, kwargs):
    """``(site, args, kwargs)`` for a record made while tracing: for a ``warnings.warn`` with a
    stacklevel above 1, the site of the frame it names and the arguments with stacklevel 1;
    ``(None, args, kwargs)`` when the traced frames cannot name it."""
    if callee is not warnings.warn:
        return site, args, kwargs
    level = _warning_level(args, kwargs)
    if level is None:
        return None, args, kwargs
    if level == 1:
        return site, args, kwargs
    traced = _inlined_site(level, state.bounded > 0)
    if traced is None:
        return None, args, kwargs
    args, kwargs = _at_level_one(args, kwargs)
    return traced, args, kwargs


@_asked_while_tracing
def _inlined_site(level: int, bounded: bool):
    """Asked while tracing: the site ``level - 1`` calls above the mended function that calls
    a runtime helper, from Dynamo's inlined frames; ``(_BOUNDARY_CALLER, n, "")`` for the
    n-th frame above the compiled frame when that frame is a function a compile boundary
    compiled (``bounded``); None when the frames cannot tell: a step out of a ``forward``
    (``Module.__call__``'s frames are not traced), past another compiled frame (a resumed
    frame's caller is the original's), or Dynamo's tracer cannot be read."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        tx = mended_tx(InstructionTranslator.current_tx().output.current_tx)
        for step in range(level - 1):
            if tx is None or tx.f_code.co_name == "forward":
                return None
            if tx.parent is None:
                if not bounded or id(tx.f_code) not in state.entry_codes:
                    return None
                return (_BOUNDARY_CALLER, level - 1 - step, "")
            tx = tx.parent
        if tx is None:
            return None
        positions = getattr(tx.current_instruction, "positions", None)
        lineno = getattr(positions, "lineno", None) or tx.lineno
        return (tx.f_code.co_filename, lineno, tx.f_code.co_name)
    except Exception:  # noqa: BLE001 (another torch: make the call at once)
        return None


def register_boundary(wrapper_code, entry=None) -> None:
    """Names the compile boundary's wrapper code and what it compiles (``entry``: a
    function, or a module, whose forward Dynamo compiles): a warning whose stacklevel reaches
    past the compiled frame names the boundary's caller, and a failed ``rerun_if`` in the
    call's first graph runs the call again."""
    state.boundary_codes[id(wrapper_code)] = wrapper_code
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(entry, torch.nn.Module):
        forward = getattr(type(entry), "forward", None)
        code = getattr(forward, "__code__", None)
        if code is not None:
            state.entry_codes[id(code)] = code
            state.entry_modules[id(code)] = weakref.ref(entry)
        return
    code = getattr(getattr(entry, "__func__", entry), "__code__", None)
    if code is not None:
        state.entry_codes[id(code)] = code
