"""Dynamo's frame conversion, retried where mended code asks: a trace that failed on a
mended torch.cond site (``cond_trace``) or that asks for scalar capture (``capture``) is
converted again, which then takes the site's original statement or captures the scalars.

The wrapper sits on ``ConvertFrameAssert``, which every ``torch.compile`` goes through:
``graphmend.compile``, the import hook's code compiled by the user, and plain
``torch.compile`` of ``graphmend.mend``-ed code alike. A failed conversion runs no user code
(Dynamo's effects are symbolic until a graph is complete), so the call still runs the
program once.
"""

from __future__ import annotations

import contextlib
import functools

from . import capture, state
from .cond_trace import switch_off


def _converted(convert, converter, frame, args, kwargs):
    """One frame's conversion, retried until it succeeds or fails on nothing mended code
    asked for."""
    code = frame.f_code
    while True:
        options = capture.options_for(code)
        try:
            with options if options is not None else contextlib.nullcontext():
                return convert(converter, frame, *args, **kwargs)
        except Exception as error:
            if switch_off(error):
                continue
            if capture.wanted(error) and id(code) not in state.capture_frames:
                state.capture_frames[id(code)] = code
                continue
            if options is not None:  # failed with capture on: the original's break instead
                state.capture_refused[id(code)] = code
                continue
            raise


def install() -> None:
    """Wraps Dynamo's frame conversion once."""
    if state.conversion_retries:
        return
    try:
        from torch._dynamo.convert_frame import ConvertFrameAssert
    except ImportError:  # pragma: no cover - the runtime without torch runs eagerly only
        return
    state.conversion_retries = True
    convert = ConvertFrameAssert.__call__
    if getattr(convert, "__graphmend_retry__", False):
        return

    @functools.wraps(convert)
    def converting(self, frame, cache_entry, hooks, frame_state, *, skip=0):
        return _converted(
            convert, self, frame, (cache_entry, hooks, frame_state), {"skip": skip + 1}
        )

    setattr(converting, "__graphmend_retry__", True)
    ConvertFrameAssert.__call__ = converting
    _watch_breaks()


def _watch_breaks() -> None:
    """Lets a captured read ask for the option where Dynamo breaks inside it
    (``capture.on_break``), as the break is logged."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslatorBase
    except ImportError:  # pragma: no cover
        return
    log = getattr(InstructionTranslatorBase, "log_graph_break", None)
    if log is None or getattr(log, "__graphmend_capture__", False):
        return

    @functools.wraps(log)
    def log_graph_break(self, code_options, reason, exc):
        capture.on_break(self, exc)
        return log(self, code_options, reason, exc)

    setattr(log_graph_break, "__graphmend_capture__", True)
    InstructionTranslatorBase.log_graph_break = log_graph_break
