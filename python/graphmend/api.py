"""The public API on live objects, gathered from the modules that implement it (kept for
code that imports ``graphmend.api``): ``mend`` (``graphmend.mender``), ``compile``
(``graphmend.compiling``, ``graphmend.runtime_aware``), ``explain``
(``graphmend.explainer``) and the report types (``graphmend.reports``)."""

from __future__ import annotations

from .boundary import boundary as _boundary  # noqa: F401
from .compiling import compile  # noqa: A004
from .explainer import _run_explain, explain  # noqa: F401
from .mender import _FILE_CACHE, mend, mend_report  # noqa: F401
from .reports import (
    BreakInfo,
    CompileReport,
    Diagnostic,
    ExplainReport,
    MendNote,
    MendReport,
)
from .runtime_aware import CaptureOptionsEnabled, _same_output, compile_report  # noqa: F401

__all__ = [
    "mend",
    "compile",
    "explain",
    "MendReport",
    "MendNote",
    "Diagnostic",
    "ExplainReport",
    "BreakInfo",
    "CompileReport",
    "CaptureOptionsEnabled",
    "compile_report",
    "mend_report",
]
