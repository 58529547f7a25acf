"""The on-disk cache of mended code, shared by the import hook, its helper process
(``ahead``), ``prepare`` and the object mender (``graphmend.mend``).

One file per entry: ``<cache_dir>/<first two hex digits>/<key>.gmc``, written with
``marshal``. The key is a SHA-256 over the source bytes, the file's absolute path, the
interpreter's bytecode magic number and cache tag, GraphMend's version and a digest of
what decides the mended code (``build_id``), the rewrite options, the entry's kind and the
cache format; the entry stores its key, and one whose stored key differs is ignored.
Entries are written to a temporary file and renamed into place (atomic on POSIX), so
concurrent processes see a whole entry or none; an entry that does not load is ignored and
written again.

Two kinds of entries:

* ``module`` (the hook's): the mended module's code object (None when nothing changed) and
  its diagnostics;
* ``objects`` (the object mender's): the code of each function a rewrite touched (as the
  mended module compiles it), the diagnostics, the core's table of functions and classes
  (``Definition``), the line map and the mended text, from which ``graphmend.mend``
  rebuilds the functions a live object reaches;
* ``rebound`` (the object mender's): the code of functions compiled alone to reach mended
  helpers through closure cells, by (qualname, first line, free variables, flags).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import marshal
import os
import sys
from typing import Any, Dict, NamedTuple, Optional, Tuple

from . import _core, codegen, splice
from ._mend_source import mend_source
from ._source import decode_source
from ._version import __version__
from .files import write_atomic

__all__ = [
    "default_cache_dir",
    "build_id",
    "Store",
    "Unmendable",
    "mend_module",
    "ObjectsEntry",
    "mend_objects",
]

_FORMAT = 2


def default_cache_dir() -> str:
    explicit = os.environ.get("GRAPHMEND_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "graphmend")


# The modules whose code decides what an entry holds: the compiled core, the runtime that
# mended code calls, and the Python steps from the core's result to code objects.
_DECIDING = ("runtime.py", "linetable.py", "splice.py", "codegen.py", "cache.py", "_mend_source.py")


@functools.lru_cache(maxsize=None)
def build_id() -> str:
    """GraphMend's version and a digest of what decides the mended code (``_DECIDING``)."""
    digest = hashlib.sha256(__version__.encode())
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (_core.__file__, *(os.path.join(here, name) for name in _DECIDING)):
        with open(path, "rb") as handle:
            digest.update(handle.read())
    return digest.hexdigest()


class Store:
    """The entries under one cache folder (None: no cache, nothing read or written)."""

    def __init__(self, cache_dir: Optional[str]) -> None:
        self.cache_dir = cache_dir

    def key(self, path: str, data: bytes, options: Dict[str, Any], kind: str = "module") -> str:
        digest = hashlib.sha256()
        for part in (
            str(_FORMAT),
            kind,
            os.path.abspath(path),
            importlib.util.MAGIC_NUMBER.hex(),
            sys.implementation.cache_tag or "",
            build_id(),
            repr(sorted(options.items())),
        ):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def path(self, key: str) -> str:
        return os.path.join(self.cache_dir, key[:2], key + ".gmc")

    def load(self, key: str) -> Optional[tuple]:
        """The stored payload of ``key``, or None (no cache, no entry, a damaged one)."""
        if self.cache_dir is None:
            return None
        try:
            with open(self.path(key), "rb") as handle:
                blob = handle.read()
            stored = marshal.loads(blob)
        except (OSError, EOFError, ValueError, TypeError):
            return None
        if not isinstance(stored, tuple) or not stored or stored[0] != key:
            return None
        return stored[1:]

    def store(self, key: str, payload: tuple) -> None:
        if self.cache_dir is None:
            return
        target = self.path(key)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            write_atomic(target, marshal.dumps((key, *payload)), durable=False, keep_mode=False)
        except OSError:
            pass  # a read-only or full cache only costs the next start its mending


class Unmendable(Exception):
    """A module the mender cannot handle (the message says why)."""


def _diagnostic_fields(result) -> tuple:
    """The diagnostics as plain tuples, for marshal."""
    return tuple(
        (d.code, d.line, d.column, d.end_line, d.end_column, d.message, d.fixed, d.rewrite,
         d.reason, d.reason_id, d.suppressed_by)
        for d in result.diagnostics
    )


def mend_module(path: str, data: bytes, options: Dict[str, bool]) -> Tuple[Any, tuple]:
    """(code, diagnostics) of the mended module (the hook's entry), code None when nothing
    changed; diagnostics as plain tuples for marshal."""
    try:
        text = decode_source(data, path).decode("utf-8", "surrogatepass")
    except (SyntaxError, UnicodeDecodeError) as exc:
        raise Unmendable(f"the source does not decode: {exc}") from None
    result = mend_source(text, path, trace_all=True, skeleton=splice.SUPPORTED, **options)
    if result.error is not None:
        raise Unmendable(f"the source does not parse: {result.error}")
    diagnostics = _diagnostic_fields(result)
    if not result.changed:
        return None, diagnostics
    try:
        code = codegen.compile_mended(result, path, data)
    except (SyntaxError, ValueError) as exc:
        raise Unmendable(f"the mended source does not compile: {exc}") from None
    return code, diagnostics


class ObjectsEntry(NamedTuple):
    """What the object mender keeps of one source file (see the module's docstring).
    ``error``: why the file cannot be mended (the rest is then empty)."""

    # (qualname, first line) -> code, of each function a rewrite touched, as the mended
    # module compiles it
    codes: Dict[Tuple[str, int], Any]
    diagnostics: tuple
    definitions: tuple  # Definition fields, as tuples
    line_map: tuple  # empty when nothing changed
    mended_text: Optional[str]  # None when nothing changed
    error: Optional[str]


def mend_objects(path: str, text: str, options: Dict[str, Any]) -> ObjectsEntry:
    """The object mender's entry for a file whose text is ``text``: mended with every
    function traced (whatever ``mend`` rebuilds goes to ``torch.compile``, however its file
    spells it), and compiled as a whole when something changed."""
    result = mend_source(text, path, trace_all=True, skeleton=splice.SUPPORTED, definitions=True,
                         **options)
    if result.error is not None:
        return ObjectsEntry({}, (), (), (), None, f"the source does not parse: {result.error}")
    diagnostics = _diagnostic_fields(result)
    definitions = tuple(tuple(d) for d in result.definitions)
    if not result.changed:
        return ObjectsEntry({}, diagnostics, definitions, (), None, None)
    try:
        code = codegen.compile_mended(result, path, _file_bytes_of(path, text))
    except (SyntaxError, ValueError) as exc:
        return ObjectsEntry({}, diagnostics, (), (), None,
                            f"the mended source does not compile: {exc}")
    compiled = splice.code_by_name_and_line(code)
    codes = {}
    for d in result.definitions:
        found = compiled.get((d.qualname, d.first_line))
        if d.touched and not d.is_class and found is not None:
            codes[(d.qualname, d.first_line)] = found
    return ObjectsEntry(codes, diagnostics, definitions, tuple(result.line_map), result.source, None)


def _file_bytes_of(path: str, text: str) -> Optional[bytes]:
    """The bytes of the file at ``path`` when they decode to ``text`` (the original's
    ``.pyc`` is then valid for it), else None."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        same = decode_source(data, path).decode("utf-8", "surrogatepass") == text
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    return data if same else None
