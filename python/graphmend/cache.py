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
* ``objects`` (the object mender's): the code of each function a rewrite touched that a
  walk reached (as the mended module compiles it: ``codegen.TouchedCode``; the others are
  compiled when a later walk reaches them, and the entry written again), the diagnostics
  and the core's table of functions and classes (``Definition``), from which
  ``graphmend.mend`` rebuilds the functions a live object reaches;
* ``rebound`` (the object mender's): the code of functions compiled alone to reach mended
  helpers through closure cells, by (qualname, first line, free variables, flags);
* ``walk`` (the object mender's): the ``objects`` and ``rebound`` payloads of every file
  one ``mend`` used, each with the digest of the file's text it holds for
  (``mender._Bundle``), so that a mend with a filled cache reads one file.

``build_id`` is kept in ``build-id.gmi`` by the stat of the files it digests.

The object mender's entries are keyed by a digest of the file's text rather than by its
bytes, and ``StatIndex`` (one file per cache folder) remembers that digest by the file's
``stat``, so that a process that finds everything in the cache reads no source at all.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import marshal
import os
import stat as stat_module
import sys
import time
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
    "touched_code",
    "PENDING",
    "StatIndex",
]

_FORMAT = 6


def default_cache_dir() -> str:
    explicit = os.environ.get("GRAPHMEND_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "graphmend")


def _deciding_files() -> Tuple[str, ...]:
    """The files whose change may change what an entry holds: the compiled core and every
    Python file of the installed package (the runtime mended code calls, the steps from the
    core's result to code objects, and whatever they come to import), in a fixed order. All
    of them rather than a list kept by hand, which a new module would miss."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    for folder, subfolders, names in os.walk(here):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        found.extend(os.path.join(folder, name) for name in sorted(names) if name.endswith(".py"))
    return (_core.__file__, *found)


@functools.lru_cache(maxsize=None)
def build_id(cache_dir: Optional[str] = None) -> str:
    """GraphMend's version and a digest of what decides the mended code (``_deciding_files``).
    Hashing the compiled core (1.6 MB) costs a fresh process about 2 ms, so with the cache
    folder in use (``cache_dir``) the digest is kept there by the files' ``stat``
    (``StatIndex.signature``), as the object mender keeps the digests of sources; without
    one nothing is read or written."""
    paths = _deciding_files()
    signatures = _unchanging_signatures(paths) if cache_dir else None
    memo = os.path.join(cache_dir or "", _BUILD_ID_MEMO)
    known = (_FORMAT, __version__, paths, signatures)
    if signatures is not None:
        stored = _read_marshalled(memo)
        if isinstance(stored, tuple) and len(stored) == 5 and stored[:4] == known:
            return stored[4]
    digest = hashlib.sha256(__version__.encode())
    for path in paths:
        with open(path, "rb") as handle:
            digest.update(handle.read())
    if signatures is not None:
        try:
            os.makedirs(os.path.dirname(memo), exist_ok=True)
            write_atomic(
                memo, marshal.dumps((*known, digest.hexdigest())), durable=False, keep_mode=False
            )
        except OSError:
            pass
    return digest.hexdigest()


_BUILD_ID_MEMO = "build-id.gmi"


def _unchanging_signatures(paths) -> Optional[tuple]:
    """The files' stat signatures, or None when one cannot be trusted to reveal a change:
    not a regular file, or modified too recently (``StatIndex.RECENT_NS``)."""
    signatures = []
    now = time.time_ns()
    for path in paths:
        try:
            stat = os.stat(path)
        except OSError:
            return None
        signature = StatIndex.signature(stat)
        if signature is None or now - max(stat.st_mtime_ns, stat.st_ctime_ns) < StatIndex.RECENT_NS:
            return None
        signatures.append(signature)
    return tuple(signatures)


def _read_marshalled(path: str) -> Any:
    """What ``path`` holds, unmarshalled (None when it is missing or damaged)."""
    try:
        with open(path, "rb") as handle:
            return marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None


class Store:
    """The entries under one cache folder (None: no cache, nothing read or written)."""

    def __init__(self, cache_dir: Optional[str]) -> None:
        self.cache_dir = cache_dir

    def key(
        self,
        path: str,
        data: Optional[bytes],
        options: Dict[str, Any],
        kind: str = "module",
        text_digest: str = "",
    ) -> str:
        """The entry's key: ``data``, the source's bytes, or (the object mender's entries,
        ``data`` None) ``text_digest``, the digest of its decoded text."""
        digest = hashlib.sha256()
        for part in (
            str(_FORMAT),
            kind,
            os.path.abspath(path),
            importlib.util.MAGIC_NUMBER.hex(),
            sys.implementation.cache_tag or "",
            build_id(self.cache_dir),
            repr(sorted(options.items())),
        ):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(data if data is not None else b"text\0" + text_digest.encode())
        return digest.hexdigest()

    def path(self, key: str) -> str:
        return os.path.join(self.cache_dir, key[:2], key + ".gmc")

    def load(self, key: str) -> Optional[tuple]:
        """The stored payload of ``key``, or None (no cache, no entry, a damaged one)."""
        if self.cache_dir is None:
            return None
        stored = _read_marshalled(self.path(key))
        if not isinstance(stored, tuple) or not stored or stored[0] != key:
            return None
        return stored[1:]

    def store(self, key: str, payload: tuple) -> None:
        if self.cache_dir is None:
            return
        target = self.path(key)
        folder = os.path.dirname(target)
        try:
            blob = marshal.dumps((key, *payload))
            try:
                write_atomic(target, blob, durable=False, keep_mode=False)
            except FileNotFoundError:  # the entry's folder is made on first use only
                os.makedirs(folder, exist_ok=True)
                write_atomic(target, blob, durable=False, keep_mode=False)
        except OSError:
            pass  # a read-only or full cache only costs the next start its mending


class Unmendable(Exception):
    """A module the mender cannot handle (the message says why)."""


def _diagnostic_fields(result) -> tuple:
    """The diagnostics as plain tuples, for marshal."""
    return tuple(d.fields() for d in result.diagnostics)


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
    ``error``: why the file cannot be mended (the rest is then empty). The disk entry holds
    all but ``line_map``, ``mended_text`` and ``touched`` (``STORED``), which only a
    function compiled alone or one not compiled yet needs, and ``touched_code`` gives
    again."""

    # (qualname, first line) -> code, of each touched function compiled so far, as the
    # mended module compiles it (None: the module has none, or two); a touched function
    # that is not there is compiled when first asked for (``compile``). Read from the disk,
    # each code is still marshalled bytes (``code`` loads it), since a model reaches few of
    # the touched functions of a library file.
    codes: Dict[Tuple[str, int], Any]
    diagnostics: tuple
    # (qualname, first line) -> Definition fields as a tuple, None where two share both
    definitions: Dict[Tuple[str, int], Optional[tuple]]
    line_map: tuple  # empty when nothing changed
    mended_text: Optional[str]  # None when nothing changed
    error: Optional[str]
    # what compiles the touched functions on demand (None: read from the disk, or nothing
    # changed)
    touched: Optional[codegen.TouchedCode] = None
    # Only what one walk used (a walk bundle's, ``partial``): ``definitions`` holds the
    # functions it looked up (False: not in the file), ``codes`` theirs, ``diagnostics``
    # those inside them; anything else is in the file's whole entry.
    partial: bool = False

    STORED = ("codes", "diagnostics", "definitions", "error")

    def stored(self) -> tuple:
        codes = {
            key: code if code is None or type(code) is bytes else marshal.dumps(code)
            for key, code in self.codes.items()
        }
        return (codes, self.diagnostics, self.definitions, self.error)

    def code(self, key: Tuple[str, int]) -> Any:
        """The code of a touched function (None when the compiled module has none, or two;
        ``PENDING`` when it was not compiled yet: ``compile``)."""
        code = self.codes.get(key, PENDING)
        if type(code) is bytes:
            try:
                code = marshal.loads(code)
            except (EOFError, ValueError, TypeError):
                code = PENDING
                del self.codes[key]
            else:
                self.codes[key] = code
        return code

    def compile(self, key: Tuple[str, int]) -> Any:
        """Compiles the touched function (``touched`` must be set) and keeps its code.
        ``SyntaxError`` or ``ValueError``: the mended text does not compile."""
        code = self.touched.get(key) if self.touched.has(key) else None
        self.codes[key] = code
        return code

    def part(self, keys) -> tuple:
        """What ``stored`` gives of a ``partial`` entry holding the functions ``keys``."""
        definitions = {key: self.definitions.get(key, False) for key in keys}
        codes = {key: self.codes[key] for key in keys if key in self.codes}
        ranges = sorted((fields[3], fields[4]) for fields in definitions.values() if fields)
        diagnostics = tuple(d for d in self.diagnostics if _within(d[1], ranges))
        return ObjectsEntry(codes, diagnostics, definitions, (), None, self.error).stored()

    @classmethod
    def from_stored(cls, stored: tuple, partial: bool = False) -> Optional["ObjectsEntry"]:
        if len(stored) != len(cls.STORED):
            return None
        codes, diagnostics, definitions, error = stored
        if not isinstance(codes, dict) or not isinstance(definitions, dict):
            return None
        return cls(codes, diagnostics, definitions, (), None, error, None, partial)


def _within(line: int, ranges: list) -> bool:
    """Whether ``line`` lies in one of ``ranges`` ((first, last) pairs, sorted)."""
    for first, last in ranges:
        if first > line:
            return False
        if line <= last:
            return True
    return False


# What ``ObjectsEntry.code`` returns for a touched function not compiled yet.
PENDING = object()


def mend_objects(path: str, text: str, options: Dict[str, Any]) -> ObjectsEntry:
    """The object mender's entry for a file whose text is ``text``: mended with every
    function traced (whatever ``mend`` rebuilds goes to ``torch.compile``, however its file
    spells it); its touched functions are compiled when first asked for
    (``ObjectsEntry.compile``)."""
    result = _mend_for_objects(path, text, options)
    if result.error is not None:
        return ObjectsEntry({}, (), {}, (), None, f"the source does not parse: {result.error}")
    diagnostics = _diagnostic_fields(result)
    definitions = definition_table(result.definitions)
    if not result.changed:
        return ObjectsEntry({}, diagnostics, definitions, (), None, None)
    return ObjectsEntry(
        {},
        diagnostics,
        definitions,
        tuple(result.line_map),
        result.source,
        None,
        _touched_code(result, path),
    )


def _touched_code(result, path: str) -> codegen.TouchedCode:
    wanted = [
        (d.qualname, d.first_line) for d in result.definitions if d.touched and not d.is_class
    ]
    return codegen.TouchedCode(result, path, wanted)


def _mend_for_objects(path: str, text: str, options: Dict[str, Any]):
    return mend_source(
        text, path, trace_all=True, skeleton=splice.SUPPORTED, definitions=True, **options
    )


def touched_code(path: str, text: str, options: Dict[str, Any]) -> Tuple[tuple, Optional[str], Any]:
    """(line map, mended text, ``codegen.TouchedCode``) of the file, as ``mend_objects``
    has them: for an entry read from the disk that lacks a touched function's code."""
    result = _mend_for_objects(path, text, options)
    if result.error is not None or not result.changed:
        return (), None, None
    return tuple(result.line_map), result.source, _touched_code(result, path)


def definition_table(definitions) -> Dict[Tuple[str, int], Optional[tuple]]:
    """The core's functions and classes by (qualname, first line), as field tuples (None
    where two share both)."""
    table: Dict[Tuple[str, int], Optional[tuple]] = {}
    for d in definitions:
        key = (d.qualname, d.first_line)
        table[key] = None if key in table else tuple(d)
    return table


class StatIndex:
    """The digest of a source file's text by its ``stat``, kept in one file of the cache
    folder, so that finding a file's entries costs a ``stat`` rather than reading and
    digesting it.

    A file is taken as unchanged when its size, modification and change times (in
    nanoseconds), inode and device are those recorded: CPython's ``.pyc`` check (size and
    modification time in seconds) made stricter. An edit that keeps all of them is possible
    only within the file system's timestamp granularity of the time recorded, so a file
    modified less than ``RECENT_NS`` before it was read is not recorded (as git does with a
    "racily clean" file): its digest is computed again each time until it is older.
    Entries are merged into the file on ``save`` and written atomically; a lost entry only
    costs a read."""

    NAME = "stat-index.gmi"
    RECENT_NS = 2_000_000_000  # FAT's 2 s resolution; most file systems are finer
    LIMIT = 50_000  # entries: beyond, the index starts again

    def __init__(self, cache_dir: Optional[str]) -> None:
        self.cache_dir = cache_dir
        self._entries: Optional[Dict[str, tuple]] = None
        self._new: Dict[str, tuple] = {}

    @staticmethod
    def signature(stat: os.stat_result) -> Optional[tuple]:
        """What must not change (None: not a regular file, never recorded)."""
        if not stat_module.S_ISREG(stat.st_mode):
            return None
        return (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino, stat.st_dev)

    def _path(self) -> str:
        return os.path.join(self.cache_dir, self.NAME)

    def _load(self) -> Dict[str, tuple]:
        if self._entries is None:
            self._entries = {}
            stored = _read_marshalled(self._path()) if self.cache_dir is not None else None
            if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == _FORMAT:
                self._entries = stored[1]
        return self._entries

    def lookup(self, path: str, stat: os.stat_result) -> Optional[str]:
        """The digest recorded for ``path`` in this ``stat``, or None."""
        if self.cache_dir is None:
            return None
        known = self._load().get(path)
        if known is None or known[0] != self.signature(stat):
            return None
        return known[1]

    def record(self, path: str, stat: os.stat_result, digest: str) -> None:
        """Records the digest of ``path``'s text as read after ``stat`` was taken (taken
        before, an edit in between leaves a signature that no longer matches)."""
        signature = self.signature(stat)
        if self.cache_dir is None or signature is None:
            return
        if time.time_ns() - max(stat.st_mtime_ns, stat.st_ctime_ns) < self.RECENT_NS:
            return
        entry = (signature, digest)
        if self._load().get(path) != entry:
            self._entries[path] = entry
            self._new[path] = entry

    def save(self) -> None:
        """Merges what was recorded since the last save into the file."""
        if not self._new or self.cache_dir is None:
            return
        new, self._new = self._new, {}
        on_disk = StatIndex(self.cache_dir)._load()
        merged = {} if len(on_disk) > self.LIMIT else dict(on_disk)
        merged.update(new)
        try:
            os.makedirs(self.cache_dir, exist_ok=True)
            write_atomic(
                self._path(), marshal.dumps((_FORMAT, merged)), durable=False, keep_mode=False
            )
        except OSError:
            pass
        self._entries = merged
