"""GraphMend: a source-to-source compiler that removes TorchDynamo graph breaks.

The front end (lexer, parser, AST) is C++ and lives in the extension module
``graphmend._core``; this package is the Python face of it. The AST never crosses into
Python: functions here take source text and return text (``dump_ast``), nothing
(``parse_check``) or plain tuples (``tokenize``).

Versions: ``version`` is a ``(major, minor)`` tuple; ``None`` means the running
interpreter's. CPython 3.11 and 3.12 grammars are supported.
"""

from __future__ import annotations

import io
import sys
import tokenize as _pytokenize
from typing import Optional, Tuple, Union

from . import _core

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "SUPPORTED_VERSIONS",
    "dump_ast",
    "parse_check",
    "tokenize",
    "decode_source",
]

Version = Optional[Tuple[int, int]]
SUPPORTED_VERSIONS = tuple(tuple(v) for v in _core.SUPPORTED_VERSIONS)


def _check_version(version: Version) -> Tuple[int, int]:
    if version is None:
        version = tuple(sys.version_info[:2])
    version = tuple(version)
    if version not in SUPPORTED_VERSIONS:
        raise ValueError(
            f"unsupported Python version {'.'.join(map(str, version))}: "
            f"supported are {', '.join('.'.join(map(str, v)) for v in SUPPORTED_VERSIONS)}"
        )
    return version


def decode_source(data: bytes, filename: str = "<unknown>") -> bytes:
    """Returns the UTF-8 text of a source file's bytes, as CPython decodes it.

    Honours a UTF-8 BOM and a PEP 263 coding cookie (``tokenize.detect_encoding``).
    UTF-8 input is passed through unchanged (minus the BOM) so that the parser reports
    invalid sequences where they are, as CPython does. Raises SyntaxError when the
    declared encoding is unknown or the bytes do not decode.
    """
    try:
        encoding, _ = _pytokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as err:
        raise SyntaxError(str(err), (filename, 0, -1, None)) from None
    if encoding == "utf-8-sig":
        return data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    if encoding == "utf-8":
        return data
    try:
        return data.decode(encoding).encode("utf-8", "surrogatepass")
    except (UnicodeDecodeError, LookupError) as err:
        raise SyntaxError(f"(unicode error) {err}", (filename, 1, 0, None)) from None


def _source_arg(source: Union[str, bytes], filename: str) -> Union[str, bytes]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return decode_source(bytes(source), filename)
    if isinstance(source, str):
        return source
    raise TypeError(f"source must be str or bytes, not {type(source).__name__}")


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

# The mender of live objects (functions, methods, nn.Module instances and classes) is
# imported on first use: a process that only mends at import (the hook, its helper) never
# pays for it.
_API_NAMES = (
    "BreakInfo",
    "CaptureOptionsEnabled",
    "CompileReport",
    "ExplainReport",
    "MendNote",
    "MendReport",
    "compile",
    "compile_report",
    "explain",
    "mend",
    "mend_report",
)


def __getattr__(name: str):
    if name in _API_NAMES or name == "api":
        import importlib

        api = importlib.import_module(".api", __name__)  # `from . import api` would come back here
        return api if name == "api" else getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_API_NAMES})


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
]
from ._mend_source import MendDiagnostic, MendResult, mend_source  # noqa: E402,F401
from .hook import GraphMendWarning, ImportHook, install, prepare, uninstall  # noqa: E402

__all__ += ["mend_source", "install", "uninstall", "prepare", "ImportHook", "GraphMendWarning"]
