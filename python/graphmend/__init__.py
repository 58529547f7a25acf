"""GraphMend: a source-to-source compiler that removes TorchDynamo graph breaks.

The front end (lexer, parser, AST) is C++ and lives in the extension module
``graphmend._core``; this package is the Python face of it. The AST never crosses into
Python: functions here take source text and return text (``dump_ast``), nothing
(``parse_check``) or plain tuples (``tokenize``).

Versions: ``version`` is a ``(major, minor)`` tuple; ``None`` means the running
interpreter's. CPython 3.11 and 3.12 grammars are supported.
"""

from __future__ import annotations

from typing import Union

from . import _core
from ._source import SUPPORTED_VERSIONS, Version, decode_source
from ._source import check_version as _check_version
from ._source import source_arg as _source_arg
from ._version import __version__

__all__ = [
    "__version__",
    "SUPPORTED_VERSIONS",
    "dump_ast",
    "parse_check",
    "tokenize",
    "decode_source",
]


def dump_ast(
    source: Union[str, bytes],
    include_attributes: bool = False,
    *,
    version: Version = None,
    filename: str = "<unknown>",
) -> str:
    """Parses ``source`` and returns what ``ast.dump(ast.parse(source), include_attributes)``
    returns on CPython ``version`` for it.

    Raises SyntaxError (IndentationError, TabError) as ``ast.parse`` would.
    """
    return _core.dump_ast(
        _source_arg(source, filename),
        include_attributes,
        version=_check_version(version),
        filename=filename,
    )


def parse_check(
    source: Union[str, bytes], filename: str = "<unknown>", *, version: Version = None
) -> None:
    """Parses ``source`` and raises SyntaxError if CPython ``version`` would reject it.

    The exception carries msg, filename, lineno, offset (1-based, in characters), text,
    end_lineno and end_offset like CPython's. IndentationError and TabError are raised
    where CPython raises them. ``bytes`` are decoded as CPython decodes a source file
    (BOM, PEP 263 coding cookie).
    """
    _core.parse_check(_source_arg(source, filename), filename, version=_check_version(version))


def tokenize(source: Union[str, bytes], *, version: Version = None):
    """Returns the token list as ``[(kind, (line, col), (end_line, end_col)), ...]``.

    Lines are 1-based, columns 0-based UTF-8 byte offsets. Comments and NL tokens are
    included. For debugging and demos; raises SyntaxError where the lexer stops.
    """
    return _core.tokenize(_source_arg(source, "<unknown>"), version=_check_version(version))


# The mender of live objects (functions, methods, nn.Module instances and classes) and what
# stands on it are imported on first use: a process that only mends at import (the hook, its
# helper) never pays for them. Each public name -> the module that defines it.
_LAZY_NAMES = {
    "BreakInfo": "reports",
    "CompileReport": "reports",
    "ExplainReport": "reports",
    "MendNote": "reports",
    "MendReport": "reports",
    "CaptureOptionsEnabled": "runtime_aware",
    "compile_report": "runtime_aware",
    "compile": "compiling",
    "explain": "explainer",
    "export": "exporting",
    "ExportReport": "exporting",
    "ExportBlocked": "exporting",
    "ExportSideEffectsDropped": "exporting",
    "mend": "mender",
    "mend_report": "mender",
}


def __getattr__(name: str):
    if name in _LAZY_NAMES or name == "api":
        import importlib

        module = importlib.import_module(f".{_LAZY_NAMES.get(name, name)}", __name__)
        return module if name == "api" else getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_LAZY_NAMES})


__all__ += [
    "mend",
    "compile",
    "explain",
    "mend_report",
    "MendReport",
    "MendNote",
    "ExplainReport",
    "BreakInfo",
    "compile_report",
    "CompileReport",
    "CaptureOptionsEnabled",
    "export",
    "ExportReport",
    "ExportBlocked",
    "ExportSideEffectsDropped",
]
from ._mend_source import MendDiagnostic, MendResult, mend_source  # noqa: E402,F401
from .reports import Diagnostic  # noqa: E402  (MendDiagnostic is another name of it)
from .hook import GraphMendWarning, ImportHook, install, prepare, uninstall  # noqa: E402

__all__ += [
    "mend_source",
    "Diagnostic",
    "install",
    "uninstall",
    "prepare",
    "ImportHook",
    "GraphMendWarning",
]
