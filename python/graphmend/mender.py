"""Mending live objects: ``graphmend.mend``.

``mend_source`` works on text. ``mend`` works on the objects a program already holds (a
function, a bound method, an ``nn.Module`` instance or class): for each function it reaches
it asks the core about the whole file that defines it (one parse and one mend per file and
process, and the shared on-disk cache across processes, ``graphmend.cache``), and rebuilds
only what the mend changed:

* a function whose text a rewrite touched gets the code the mended module compiles to, with
  the original's line numbers (the file's skeleton is compiled when the walk first reaches
  one of its touched functions, and each one reached is renumbered: ``codegen.TouchedCode``);
* a function that calls a mended helper by a global name gets the helper bound to it
  through a closure cell, so the module's globals stay exactly as they were: its code with
  those loads turned into loads of free variables (``codegen.bind_globals``), or, where that
  does not apply, compiled again alone (``codegen.compile_function``);
* every other function keeps its code object.

What a mended function keeps from the original: its globals (the original module's dict,
the only name added there is ``__graphmend_rt__``), its closure cells, defaults, keyword
defaults, ``__name__``, ``__qualname__``, ``__doc__``, ``__module__``, ``__annotations__``
and ``__dict__`` (``__wrapped__`` included). ``self.method(...)`` calls reach the mended
methods because a mended module is an instance of a mended subclass of its class.

Nothing the user holds is modified: ``mend(module)`` returns a shallow copy of the module
tree whose modules of mended classes are instances of a subclass; parameters and buffers
are the same tensors, so ``state_dict()`` is identical. A plain object of a user class the
tree holds as an attribute is held by the copy as a twin of the mended class sharing the
object's ``__dict__`` (``_Mender.held``).
"""

from __future__ import annotations

import bisect
import copy
import functools
import hashlib
import importlib
import linecache
import os
import sys
import types
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import _core, cache, codegen
from ._mend_source import Definition
from .libraries import is_library_file, is_library_module
from .options import switches as rewrite_switches
from .registry import mended_at_import
from .runtime.held import MendedItems
from .reports import Diagnostic, MendNote, MendReport, diagnostic_of

__all__ = ["mend", "mend_report"]

_RUNTIME_NAME = _core.RUNTIME_NAME


def _runtime() -> types.ModuleType:
    return sys.modules.get("graphmend.runtime") or importlib.import_module("graphmend.runtime")


def _cache_dir() -> Optional[str]:
    """Where the object mender's entries go: the hook's cache folder."""
    return cache.default_cache_dir()


# ---------------------------------------------------------------------------------------------
# One source file, as the core mended it.


class _MendedFile:
    """A source file as the core mended it: its diagnostics, its functions and classes, and
    the code the mended module compiles to."""

    def __init__(
        self,
        source: "_Source",
        entry: cache.ObjectsEntry,
        store: cache.Store,
        options: Dict[str, Any],
        rebound: Optional[dict] = None,
        *,
        fresh: bool = False,
    ) -> None:
        self.filename = source.filename
        self.source = source
        self.error = entry.error
        self._entry = entry
        self._options = options
        self._diagnostics: Optional[List[Diagnostic]] = None
        self._diagnostic_lines: Optional[Tuple[List[int], List[int]]] = None
        # Functions compiled alone, kept on disk under the "rebound" key (not at all when
        # `store` has no folder); `rebound`: those a walk bundle had.
        self._store = store
        self._rebound: Optional[Dict[tuple, types.CodeType]] = rebound
        self._rebound_dirty = False
        # The objects entry differs from the disk's (``fresh``: just made; or a touched
        # function was compiled since it was read): written by ``save``.
        self._entry_dirty = False
        # The keys of the walk bundles that hold this file as it is now (``_Bundle``).
        self.bundles: set = set()
        # (qualname, first line) of each function or class looked up (``definition``).
        self._looked_up: set = set()
        self._lines: Optional[List[str]] = None
        self._mended_lines: Optional[List[str]] = None
        self._line_map: tuple = entry.line_map
        if fresh:
            self._changed()

    @property
    def text(self) -> str:
        return self.source.text()

    @property
    def diagnostics(self) -> List[Diagnostic]:
        if self._entry.partial:
            self._whole()
        return self._held_diagnostics()

    def _held_diagnostics(self) -> List[Diagnostic]:
        if self._diagnostics is None:
            self._diagnostics = [diagnostic_of(self.filename, d) for d in self._entry.diagnostics]
        return self._diagnostics

    def diagnostics_in(self, first: int, last: int) -> List[Diagnostic]:
        """The diagnostics starting on lines first..last, in order (of a function
        ``definition`` gave: a partial entry holds those)."""
        if not self._entry.diagnostics:
            return []
        diagnostics = self._held_diagnostics()
        if self._diagnostic_lines is None:
            by_line = sorted(range(len(diagnostics)), key=lambda i: diagnostics[i].line)
            self._diagnostic_lines = ([diagnostics[i].line for i in by_line], by_line)
        lines, by_line = self._diagnostic_lines
        found = by_line[bisect.bisect_left(lines, first) : bisect.bisect_right(lines, last)]
        return [diagnostics[i] for i in sorted(found)]

    def definition(self, qualname: str, first_line: int) -> Optional[Definition]:
        """The function or class of that name whose text starts on that line (None when
        there is none, or more than one)."""
        key = (qualname, first_line)
        self._looked_up.add(key)
        fields = self._entry.definitions.get(key, False)
        if fields is False and self._entry.partial and key not in self._entry.definitions:
            self._whole()
            fields = self._entry.definitions.get(key)
        return Definition._make(fields) if fields else None

    def _whole(self) -> None:
        """Replaces a walk bundle's part of the entry (``ObjectsEntry.partial``) by the
        file's whole entry, read from the disk (or made again), with the code the part
        held."""
        part = self._entry
        entry, fresh = _objects_entry(self.source, self._store, self._options)
        added = {key: code for key, code in part.codes.items() if key not in entry.codes}
        entry.codes.update(added)
        self._entry, self.error = entry, entry.error
        self._diagnostics = self._diagnostic_lines = None
        if fresh or added:
            self._changed()
        else:
            self.bundles.clear()  # the bundle is written again with what this walk used

    def module_code(self, definition: Definition) -> Optional[types.CodeType]:
        """The function's code in the compiled mended module (None when it is not there),
        compiled when it is first asked for (``cache.ObjectsEntry.compile``). A mended text
        that does not compile makes the file unmendable, as it is when compiled whole: the
        walk starts again (``_Restart``)."""
        key = (definition.qualname, definition.first_line)
        code = self._entry.code(key)
        if code is cache.PENDING and self._entry.partial:
            self._whole()
            code = self._entry.code(key)
        if code is not cache.PENDING:
            return code
        if self._entry.touched is None:  # read from the disk: mend the text again
            self._remend()
        try:
            code = self._entry.compile(key)
        except (SyntaxError, ValueError) as exc:
            self.error = f"the mended source does not compile: {exc}"
            self._entry = cache.ObjectsEntry({}, self._entry.diagnostics, {}, (), None, self.error)
            self._diagnostics = self._diagnostic_lines = None
            self._changed()
            raise _Restart from None
        self._changed()
        return code

    def _remend(self) -> None:
        """Fills what the disk entry does not keep (``cache.touched_code``)."""
        line_map, mended_text, touched = cache.touched_code(self.filename, self.text, self._options)
        self._line_map = line_map
        self._entry = self._entry._replace(
            line_map=line_map, mended_text=mended_text, touched=touched
        )

    def _changed(self) -> None:
        """The objects entry changed: written again by ``save``, and with the bundles."""
        self._entry_dirty = bool(self._store.cache_dir)
        self.bundles.clear()
        _UNSAVED.add(self)

    def compile_alone(
        self, definition: Definition, scope_names: Sequence[str], flags: int
    ) -> types.CodeType:
        """The function compiled on its own (``codegen.compile_function``): from the mended
        text when a rewrite touched it, else from the original text. Kept, in this process
        and on disk (``save``)."""
        key = (definition.qualname, definition.first_line, tuple(scope_names), flags)
        if self._rebound is None:
            stored = self._store.load(self._key("rebound")) if self._store.cache_dir else None
            self._rebound = stored[0] if stored and isinstance(stored[0], dict) else {}
        code = self._rebound.get(key)
        if code is None:
            code = self._compile_alone(definition, scope_names, flags)
            self._rebound[key] = code
            self._rebound_dirty = bool(self._store.cache_dir)
            self.bundles.clear()
            _UNSAVED.add(self)
        return code

    def _key(self, kind: str) -> str:
        return self._store.key(
            self.filename, None, self._options, kind, text_digest=self.source.digest
        )

    def save(self) -> None:
        """Writes the objects entry, when it changed, and the functions compiled alone
        since the last save to the disk cache."""
        if self._entry_dirty:
            self._store.store(self._key("objects"), self._entry.stored())
            self._entry_dirty = False
        if self._rebound_dirty:
            self._store.store(self._key("rebound"), (self._rebound,))
            self._rebound_dirty = False

    def bundled(self) -> tuple:
        """What a walk bundle keeps of the file: (digest, the part of the objects entry
        that holds the functions the walks of this process looked up, the functions
        compiled alone or None when they were never looked up)."""
        return (self.source.digest, self._entry.part(self._looked_up), self._rebound)

    def _compile_alone(
        self, definition: Definition, scope_names: Sequence[str], flags: int
    ) -> types.CodeType:
        if definition.touched:
            if self._mended_lines is None:
                if self._entry.mended_text is None:  # read from the disk, which does not keep it
                    self._remend()
                self._mended_lines = self._entry.mended_text.splitlines(keepends=True)
            first, last = definition.mended_first_line, definition.mended_last_line
            lines = self._mended_lines[first - 1 : last]
            original_lines = [self._line_map[i - 1] or i for i in range(first, last + 1)]
        else:
            if self._lines is None:
                self._lines = self.text.splitlines(keepends=True)
            first, last = definition.first_line, definition.last_line
            lines = self._lines[first - 1 : last]
            original_lines = list(range(first, last + 1))
        return codegen.compile_function(
            lines,
            original_lines,
            self.filename,
            definition.qualname,
            definition.class_name,
            scope_names,
            flags,
        )


# Files with functions compiled alone that the disk cache does not have yet.
_UNSAVED: set = set()


def _save_compiled() -> None:
    while _UNSAVED:
        _UNSAVED.pop().save()
    for index in _STAT_INDEXES.values():
        index.save()


# (filename, digest of the text, options) -> the file as mended in this process.
_FILE_CACHE: Dict[Tuple[str, str, Tuple[Tuple[str, Any], ...]], _MendedFile] = {}
# filename -> (the linecache list of lines, its text, its digest): a file's lines are read
# and digested once, however many of its functions are looked up.
_TEXTS: Dict[str, Tuple[List[str], str, str]] = {}
# filename -> (its stat signature, the digest of its text), in this process.
_DIGESTS: Dict[str, Tuple[tuple, str]] = {}
# cache folder -> its StatIndex
_STAT_INDEXES: Dict[str, cache.StatIndex] = {}


class _Restart(Exception):
    """A file turned out unmendable during a walk (its mended text does not compile, found
    when a touched function was first compiled): the walk starts again, and finds the file
    unmendable from the start."""


class _SourceChanged(Exception):
    """The file's text is no longer the one its digest was taken of."""


class _Source:
    """A source file by the digest of its text; the text itself is read when needed (from
    ``linecache``, as ``inspect`` reads it)."""

    __slots__ = ("filename", "digest", "_globals", "_text")

    def __init__(
        self, filename: str, digest: str, globals_: Optional[dict], text: Optional[str] = None
    ) -> None:
        self.filename, self.digest, self._globals, self._text = filename, digest, globals_, text

    def text(self) -> str:
        if self._text is None:
            lines = linecache.getlines(self.filename, self._globals)
            text, digest = _text_of(self.filename, lines)
            if digest != self.digest:
                raise _SourceChanged(f"{self.filename} changed while it was being mended")
            self._text = text
        return self._text


def _file_options(filename: str, options: Dict[str, Any]) -> Dict[str, Any]:
    """The mender's options for one file. Runtime-aware mode passes ``only_lines`` as a map
    from file name to the lines Dynamo broke on there; a file it never broke in gets line 0,
    which no break site contains, so nothing in it is rewritten (an empty filter would mean
    no filter). ``observed_lines`` (the lines it broke on a tensor branch) is such a map too,
    and may come alone (the evidence of ``graphmend.compile``'s first call)."""
    lines_by_file = options.get("only_lines")
    if lines_by_file is None:
        observed = options.get("observed_lines")
        if not isinstance(observed, dict):
            return options
        # Runtime evidence over the whole text (``graphmend.compile``'s first call): a file
        # Dynamo never broke on a branch in is mended as from its text alone.
        options = {k: v for k, v in options.items() if k != "observed_lines"}
        found = tuple(sorted(observed.get(filename, ())))
        if found:
            options["observed_lines"] = found
        return options
    options = {**options, "only_lines": tuple(sorted(lines_by_file.get(filename, ()))) or (0,)}
    observed = options.get("observed_lines")
    if observed is not None:
        options["observed_lines"] = tuple(sorted(observed.get(filename, ())))
    return options


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _text_of(filename: str, lines: List[str]) -> Tuple[str, str]:
    known = _TEXTS.get(filename)
    if known is not None and known[0] is lines:
        return known[1], known[2]
    text = "".join(lines)
    digest = _digest(text)
    _TEXTS[filename] = (lines, text, digest)
    return text, digest


def _mend_file(filename: str, text: str, options: Dict[str, Any], digest: str = "") -> _MendedFile:
    """The file of that text mended with ``options`` (``_mend_source_file``), its entry
    written to the disk cache."""
    mended = _mend_source_file(_Source(filename, digest or _digest(text), None, text), options)
    mended.save()
    return mended


def _mend_source_file(
    source: _Source, options: Dict[str, Any], bundle: Optional["_Bundle"] = None
) -> _MendedFile:
    """The file mended with ``options``: once per process, and from the on-disk cache when
    another process mended it (runtime-aware mode's line filters are not stored): from the
    walk's ``bundle`` when it holds the file with this text, else from the file's entry."""
    filename = source.filename
    options = _file_options(filename, options)
    key = (filename, source.digest, tuple(sorted(options.items())))
    cached = _FILE_CACHE.get(key)
    if cached is not None:
        return cached
    store = cache.Store(None if "only_lines" in options else _cache_dir())
    bundled = bundle.lookup(filename, source.digest) if bundle is not None else None
    if bundled is not None:
        entry, rebound = bundled
        mended = _MendedFile(source, entry, store, options, rebound)
        mended.bundles.add(bundle.key)
    else:
        entry, fresh = _objects_entry(source, store, options)
        mended = _MendedFile(source, entry, store, options, fresh=fresh)
    if len(_FILE_CACHE) > 256:
        _FILE_CACHE.clear()
    _FILE_CACHE[key] = mended
    return mended


def _objects_entry(
    source: _Source, store: cache.Store, options: Dict[str, Any]
) -> Tuple[cache.ObjectsEntry, bool]:
    """The file's entry in the disk cache, or made when it has none (then True: it is
    written with the touched functions the walk compiled, ``_MendedFile.save``)."""
    if store.cache_dir:
        disk_key = store.key(source.filename, None, options, "objects", text_digest=source.digest)
        stored = store.load(disk_key)
        entry = cache.ObjectsEntry.from_stored(stored) if stored is not None else None
        if entry is not None:
            return entry, False
    return cache.mend_objects(source.filename, source.text(), options), True


class _Bundle:
    """What one walk used of the cache entries of every file it used (the functions and
    classes it looked up, their code and diagnostics: ``cache.ObjectsEntry.part``), in one
    file keyed by the root (its class or function and, for a module, the classes of its
    submodules) and the options: a mend with a filled cache reads this one file instead of
    one entry per file, and computes no key per file. A file's part is taken from it only
    when the digest of the file's text is the one recorded there (the per-file entries' own
    key), so a changed file or option never reaches stale code; the walk itself runs as
    without the bundle, and a walk that looks up anything else in a file reads the file's
    whole entry (``_MendedFile._whole``). The bundle is written again after a walk that
    used a file or a function it did not hold, or compiled a function."""

    def __init__(self, store: cache.Store, key: str) -> None:
        self.store, self.key = store, key
        self._files: Optional[Dict[str, tuple]] = None

    @classmethod
    def of_root(cls, obj: Any, options: Dict[str, Any]) -> Optional["_Bundle"]:
        """The bundle of a walk from ``obj`` (None: no cache folder, or line filters)."""
        folder = _cache_dir()
        name = _root_name(obj)
        if not folder or name is None or "only_lines" in options:
            return None
        store = cache.Store(folder)
        return cls(store, store.key(os.sep, None, options, "walk", text_digest=name))

    def lookup(self, filename: str, digest: str) -> Optional[tuple]:
        """(the objects entry, the functions compiled alone or None) of the file, when the
        bundle holds it with that digest."""
        if self._files is None:
            stored = self.store.load(self.key)
            self._files = stored[0] if stored and isinstance(stored[0], dict) else {}
        found = self._files.get(filename)
        if not isinstance(found, tuple) or len(found) != 3 or found[0] != digest:
            return None
        part = found[1]
        entry = None
        if isinstance(part, tuple):
            entry = cache.ObjectsEntry.from_stored(part, partial=True)
        rebound = found[2] if isinstance(found[2], dict) else None
        return None if entry is None else (entry, rebound)

    def save(self, used: Sequence[_MendedFile]) -> None:
        """Writes the entries of the files the walk used, unless the bundle has them all."""
        if all(self.key in mended.bundles for mended in used):
            return
        self.store.store(self.key, ({m.filename: m.bundled() for m in used},))
        for mended in used:
            mended.bundles.add(self.key)
        self._files = None


def _root_name(obj: Any) -> Optional[str]:
    """What names a walk's root across processes: a function's or class's module and
    qualified name; for a module instance, also the classes of its submodules."""
    if isinstance(obj, types.MethodType):
        owner = obj.__self__
        if not _looks_like_torch_module(owner):
            return _root_name(obj.__func__)
        return f"{_root_name(owner)}.{obj.__func__.__name__}"
    if _looks_like_torch_module(obj):
        classes = sorted({_qualified(type(m)) for m in obj.modules()})
        return f"{_qualified(type(obj))}[{','.join(classes)}]"
    if isinstance(obj, (type, types.FunctionType)):
        return _qualified(obj)
    return None


def _qualified(obj: Any) -> str:
    return f"{getattr(obj, '__module__', None)}:{getattr(obj, '__qualname__', '?')}"


def _stat_index() -> Optional[cache.StatIndex]:
    folder = _cache_dir()
    if not folder:
        return None
    index = _STAT_INDEXES.get(folder)
    if index is None:
        index = _STAT_INDEXES[folder] = cache.StatIndex(folder)
    return index


def _source_file(code: types.CodeType, globals_: Optional[dict]) -> Optional[_Source]:
    """The file ``code`` was compiled from, by the digest of its text as ``linecache`` has
    it. A file on disk that ``linecache`` does not hold yet is known by its ``stat``
    (``cache.StatIndex``): its text is read only when it was never digested."""
    filename = code.co_filename
    if not filename or (filename.startswith("<") and filename not in linecache.cache):
        return None
    stat = None
    if filename not in linecache.cache and os.path.isabs(filename):
        try:
            stat = os.stat(filename)
        except OSError:
            stat = None
        signature = stat and cache.StatIndex.signature(stat)
        if signature is not None:
            known = _DIGESTS.get(filename)
            if known is not None and known[0] == signature:
                return _Source(filename, known[1], globals_)
            index = _stat_index()
            digest = index.lookup(filename, stat) if index is not None else None
            if digest is not None:
                _DIGESTS[filename] = (signature, digest)
                return _Source(filename, digest, globals_)
    lines = linecache.getlines(filename, globals_)
    if not lines:
        return None
    text, digest = _text_of(filename, lines)
    if stat is not None and cache.StatIndex.signature(stat) is not None:
        index = _stat_index()
        if index is not None:
            index.record(filename, stat, digest)
    return _Source(filename, digest, globals_, text)


# ---------------------------------------------------------------------------------------------
# Which code is the user's (mended) and which is a library's (never touched).


def _marks_torch(value: Any) -> bool:
    """Whether Dynamo takes a global bound to ``value`` as a sign that a frame works on
    tensors (``has_tensor_in_frame``): torch, one of its modules, or numpy itself (not its
    submodules). The numpy functions and arrays Dynamo counts too are left out: missing one
    in the original only binds torch to a cell in a frame Dynamo traces anyway."""
    if not isinstance(value, types.ModuleType):
        return False
    name = value.__name__
    return name in ("torch", "numpy") or name.startswith("torch.")


def _torch_names_added(
    original: types.CodeType, mended: types.CodeType, globals_: Dict[str, Any]
) -> Dict[str, types.CellType]:
    """The torch modules that mended code names as globals where the original's code names
    none, each in a cell to bind it to. Dynamo runs a frame that names no torch module and
    holds no tensor without tracing it; a rewrite's `torch.where` must not make it trace a
    frame the original ran as it is (a frame of its own can break where none broke)."""
    if any(_marks_torch(globals_.get(n)) for n in original.co_names):
        return {}
    return {
        n: types.CellType(globals_[n]) for n in mended.co_names if _marks_torch(globals_.get(n))
    }


def _skip_reason(fn: Any, known: Optional[Dict[tuple, Optional[str]]] = None) -> Optional[str]:
    """Why ``fn`` is not mended, or None. ``known``: what was decided for its module and
    file before (the same within one ``mend``)."""
    if not isinstance(fn, types.FunctionType):
        return f"not a Python function ({type(fn).__name__})"
    code = fn.__code__
    place = (getattr(fn, "__module__", None), code.co_filename)
    if known is not None and place in known:
        reason = known[place]
    else:
        reason = _library_reason(*place)
        if known is not None:
            known[place] = reason
    if reason is None and code.co_name == "<lambda>":
        return "a lambda (mend the function that defines it)"
    return reason


def _library_reason(module: Optional[str], filename: str) -> Optional[str]:
    if mended_at_import(filename):  # first: the cheapest test
        return "mended at import (graphmend.install)"
    if is_library_module(module):
        return f"library code ({module})"
    if is_library_file(filename):
        return f"library code ({filename})"
    return None


# ---------------------------------------------------------------------------------------------
# The mender of objects.


class _Mender:
    def __init__(
        self,
        options: Dict[str, Any],
        bundle: Optional[_Bundle] = None,
        reach: Optional[frozenset] = None,
    ):
        self.options = options
        self.bundle = bundle  # where the walk's files are read from first, and kept
        # The class members a compiled call may run (``_compile_reach``); None: all of them.
        self.reach = reach
        self.report = MendReport()
        self.functions: Dict[int, Any] = {}  # id(original) -> mended (or original)
        self.cells: Dict[int, types.CellType] = {}  # id(original) -> cell of its mended form
        self.classes: Dict[int, type] = {}
        # id(a value a module holds) -> what its mended copy holds (``held``): one twin per
        # object, however many attributes hold it, so `is` between them still holds.
        self.held_objects: Dict[int, Any] = {}
        self.user_classes: Dict[type, bool] = {}  # class -> its instances are user objects
        self.keep_alive: List[Any] = []
        self.seen_diagnostics: set = set()
        self.building: set = set()  # ids of functions being built (recursion)
        self.places: Dict[tuple, Optional[str]] = {}  # (module, file) -> why never mended
        self.sources: Dict[str, Any] = {}  # file name -> its _Source (None: no source)
        self.mended_files: Dict[str, _MendedFile] = {}  # file name -> as mended
        self.global_helpers: Dict[int, Dict[str, Any]] = {}  # id(module globals) -> helpers
        self.global_objects: Dict[int, Dict[str, Any]] = {}  # id(module globals) -> objects
        self.global_registries: Dict[int, Dict[str, Any]] = {}  # id(module globals) -> ...
        # What a class mended here is marked with: mending it again the same way keeps it.
        self.made_with = (sorted(options.items(), key=lambda item: item[0]), reach)

    # -- functions ------------------------------------------------------------------------

    def note(self, qualname: str, filename: str, line: int, status: str, reason: str = "") -> None:
        self.report.notes.append(MendNote(qualname, filename, line, status, reason))

    def function(self, fn: Any, *, force_new: bool = False) -> Any:
        """Returns the mended form of ``fn`` (``fn`` itself when there is nothing to mend and
        ``force_new`` is false, or when it cannot be mended)."""
        key = id(fn)
        if key in self.functions:
            return self.functions[key]
        original = getattr(fn, "__graphmend_original__", None)
        if isinstance(original, types.FunctionType):
            fn = original
        reason = _skip_reason(fn, self.places)
        if reason is not None:
            rewrapped = self._rewrap(fn) if isinstance(fn, types.FunctionType) else None
            if rewrapped is not None:
                self.note(fn.__qualname__, "", 0, "mended", "a library wrapper around mended code")
                self.functions[key] = rewrapped
                return rewrapped
            self.note(getattr(fn, "__qualname__", repr(fn)), "", 0, "skipped", reason)
            self.functions[key] = fn
            return fn
        self.keep_alive.append(fn)
        # A recursive helper reaches itself: its cell is filled once it is built.
        self.cells[key] = types.CellType(fn)
        self.functions[key] = fn
        self.building.add(key)
        try:
            built = self._build(fn, force_new)
        except _Restart:
            raise
        except Exception as exc:  # never let mending break the program: keep the original
            self.note(
                fn.__qualname__,
                fn.__code__.co_filename,
                fn.__code__.co_firstlineno,
                "skipped",
                f"could not rebuild: {type(exc).__name__}: {exc}",
            )
            built = fn
        finally:
            self.building.discard(key)
        self.functions[key] = built
        self.cells[key].cell_contents = built
        return built

    def _wrapped_cells(self, fn: types.FunctionType) -> Dict[str, types.CellType]:
        """New cells for the closure cells of a decorator's wrapper (``functools.wraps``)
        that hold the wrapped function, holding its mended form instead."""
        wrapped = fn.__dict__.get("__wrapped__")
        if not isinstance(wrapped, types.FunctionType) or not fn.__closure__:
            return {}
        inner = self.function(wrapped)
        if inner is wrapped:
            return {}
        out = {}
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                holds = cell.cell_contents is wrapped
            except ValueError:  # an empty cell
                holds = False
            if holds:
                out[name] = types.CellType(inner)
        return out

    def _rewrap(self, fn: types.FunctionType) -> Optional[types.FunctionType]:
        """A library decorator's wrapper (``@torch.no_grad()``...) around mended user code:
        the same wrapper code with the mended function in its closure; None when there is
        nothing to rewrap."""
        cells = self._wrapped_cells(fn)
        if not cells:
            return None
        closure = tuple(cells.get(n, c) for n, c in zip(fn.__code__.co_freevars, fn.__closure__))
        return _copy_function(fn, fn.__code__, closure, cells)

    def _locate(self, fn: types.FunctionType) -> Tuple[Optional[_MendedFile], Any, str]:
        """The mended file of ``fn`` and its definition there, or why there is none."""
        code = fn.__code__
        source = self.sources.get(code.co_filename, False)
        if source is False:
            source = self.sources[code.co_filename] = _source_file(code, fn.__globals__)
        if source is None:
            return None, None, "no source"
        mended = self.mended_files.get(code.co_filename)
        if mended is None:
            mended = _mend_source_file(source, self.options, self.bundle)
            self.mended_files[code.co_filename] = mended
        if mended.error is not None:
            return None, None, mended.error
        definition = mended.definition(code.co_qualname, code.co_firstlineno)
        expected = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        if definition is None or definition.is_class or definition.params != expected:
            return None, None, "the source file does not match the function (edited since import?)"
        return mended, definition, ""

    def _build(self, fn: types.FunctionType, force_new: bool) -> Any:
        code = fn.__code__
        mended, definition, reason = self._locate(fn)
        if mended is None:
            self.note(fn.__qualname__, code.co_filename, code.co_firstlineno, "skipped", reason)
            return fn
        changed = definition.touched
        freevars = list(code.co_freevars)
        new_code = self._mended_code(fn, mended, definition) if changed else code
        helpers = self._helpers(fn, new_code, freevars)
        torch_cells = _torch_names_added(code, new_code, fn.__globals__) if changed else {}
        bound_names = list(helpers) + [n for n in torch_cells if n not in helpers]
        if bound_names:
            bound = codegen.bind_globals(new_code, bound_names)
            if bound is None:
                flags = code.co_flags & codegen.FUTURE_FLAGS
                bound = mended.compile_alone(definition, freevars + bound_names, flags)
            new_code = bound
        self._collect_diagnostics(mended, definition)
        rewrapped_cells = self._wrapped_cells(fn)
        if not changed and not helpers and not rewrapped_cells and not force_new:
            self.note(fn.__qualname__, code.co_filename, code.co_firstlineno, "unchanged")
            return fn
        closure = self._closure(fn, new_code, helpers, {**torch_cells, **rewrapped_cells})
        if changed:
            fn.__globals__.setdefault(_RUNTIME_NAME, _runtime())
        new = _copy_function(fn, new_code, closure, rewrapped_cells)
        status = "mended" if changed else "unchanged"
        detail = "" if changed else "rebuilt to reach mended helpers"
        self.note(fn.__qualname__, code.co_filename, code.co_firstlineno, status, detail)
        return new

    @staticmethod
    def _mended_code(
        fn: types.FunctionType, mended: _MendedFile, definition: Definition
    ) -> types.CodeType:
        """The code of a function a rewrite touched: from the compiled mended module, where
        it was compiled in the same place as the original (same free variables), else
        compiled alone."""
        code = mended.module_code(definition)
        if code is not None and code.co_freevars == fn.__code__.co_freevars:
            return code
        flags = fn.__code__.co_flags & codegen.FUTURE_FLAGS
        return mended.compile_alone(definition, list(fn.__code__.co_freevars), flags)

    def _helpers(
        self, fn: types.FunctionType, code: types.CodeType, freevars: List[str]
    ) -> Dict[str, Any]:
        """The user functions and classes ``code`` calls by a global name that mending
        rebuilt (or that are being built: recursion), each mended in turn: name -> the
        original. A class is reached as its constructor: ``Exponential(rate)`` in a mended
        function builds an instance of the mended class (``cls``), whose methods and mended
        bases' methods run mended."""
        helpers: Dict[str, Any] = {}
        objects = self._global_objects(fn.__globals__)
        registries = self._global_registries(fn.__globals__)
        candidates = {**self._global_helpers(fn.__globals__), **objects, **registries}
        if not codegen.may_load_any(code, candidates):
            return helpers
        for name in codegen.global_loads(code):
            value = candidates.get(name)
            if name in freevars or value is None or value is not fn.__globals__.get(name):
                continue
            if name in objects:
                if _only_attributes_read(value, codegen.global_uses(code, name), self.user_classes):
                    self._bind_held(name, value, helpers)
                continue
            if name in registries:
                if _only_items_used(codegen.global_uses(code, name)):
                    self._bind_registry(name, value, helpers)
                continue
            if isinstance(value, type):
                # a module's walk is limited to what its call runs (reach): constructors of
                # other classes stay as they are there (a model's output dataclasses)
                if self.reach is None and self._mended_constructor(value) is not value:
                    helpers[name] = value
                continue
            if _skip_reason(value, self.places) is not None:
                continue
            mended_helper = self.function(value)
            if mended_helper is not value or id(value) in self.building:
                helpers[name] = value
        return helpers

    def _mended_constructor(self, klass: type) -> type:
        """The mended class a call of ``klass`` by name builds instead, with the cell that
        binds it; ``klass`` itself when nothing in it changes or it cannot be subclassed
        (an enum with members, a metaclass that refuses)."""
        try:
            mended = self.cls(klass)
        except Exception as exc:  # never let mending break the program: keep the class
            self.note(
                klass.__qualname__,
                "",
                0,
                "skipped",
                f"could not subclass: {type(exc).__name__}: {exc}",
            )
            return klass
        if mended is not klass and id(klass) not in self.cells:
            self.cells[id(klass)] = types.CellType(mended)
        return mended

    def _bind_held(self, name: str, value: Any, helpers: Dict[str, Any]) -> None:
        """A global object the function only reads attributes of (its methods: `DEPTHER.
        slide_inference(...)`) is read as its twin (``held``), as a module's attribute is, so
        its methods run mended; one it compares (`x is DEFAULT`) or passes on stays itself."""
        twin = self.held(value)
        if twin is not value:
            self.cells.setdefault(id(value), types.CellType(twin))
            helpers[name] = value

    def _bind_registry(self, name: str, container: Any, helpers: Dict[str, Any]) -> None:
        """A global dict or list of user objects, classes or functions the function only
        reads items of (`SOLVERS[method](...)`, `DATASETS[task].verify_labels(...)`) is read
        through a ``MendedItems``: the live container's item, mended (``_registry_item``)."""
        if id(container) not in self.cells:
            mended = {}
            for item in _container_items(container):
                counterpart = self._registry_item(item)
                if counterpart is not item:
                    mended[id(item)] = (item, counterpart)
            if not mended:
                return
            self.cells[id(container)] = types.CellType(MendedItems(container, mended))
        helpers[name] = container

    def _registry_item(self, item: Any) -> Any:
        """The mended counterpart of a registry's item: a user function mended, a user
        class's mended constructor, a plain user object's twin; else the item itself."""
        if isinstance(item, types.FunctionType):
            if _skip_reason(item, self.places) is None and id(item) not in self.building:
                return self.function(item)
            return item
        if isinstance(item, type):
            # as for a constructor called by name: a module's walk does not follow it
            if self.reach is not None or is_library_module(item.__module__):
                return item
            return self._mended_constructor(item)
        if _is_user_object(item, self.user_classes):
            return self.held(item)
        return item

    def _global_registries(self, globals_: dict) -> Dict[str, Any]:
        """The dicts and lists among a module's globals (of at most ``_REGISTRY_SIZE``
        items) holding a user object, class or function, that no function of the module
        assigns as a global."""
        return self._unassigned_globals(self.global_registries, globals_, self._is_registry)

    def _is_registry(self, value: Any) -> bool:
        return (
            type(value) in (dict, list)
            and 0 < len(value) <= _REGISTRY_SIZE
            and any(self._registry_item_kind(item) for item in _container_items(value))
        )

    def _registry_item_kind(self, item: Any) -> bool:
        if isinstance(item, types.FunctionType):
            return not is_library_module(getattr(item, "__module__", None) or "")
        if isinstance(item, type):
            return not is_library_module(item.__module__)
        return _is_user_object(item, self.user_classes)

    def _global_objects(self, globals_: dict) -> Dict[str, Any]:
        """The plain objects of user classes, alone or in a tuple, among a module's globals
        that no function of the module assigns: a mended function reads each through a cell
        bound once, which a later `global NAME; NAME = ...` would not update."""
        return self._unassigned_globals(
            self.global_objects,
            globals_,
            lambda v: any(_is_user_object(item, self.user_classes) for item in _items_of(v)),
        )

    def _unassigned_globals(
        self, cache: Dict[int, Dict[str, Any]], globals_: dict, wanted
    ) -> Dict[str, Any]:
        """The globals of a module (``globals_``) that ``wanted`` accepts and no function or
        method of the module assigns as a global, found once per module within one ``mend``."""
        found = cache.get(id(globals_))
        if found is None:
            found = {n: v for n, v in globals_.items() if not n.startswith("__") and wanted(v)}
            if found:
                for name in _module_global_writes(globals_, found):
                    found.pop(name, None)
            cache[id(globals_)] = found
            self.keep_alive.append(globals_)
        return found

    def _global_helpers(self, globals_: dict) -> Dict[str, Any]:
        """The Python functions and user classes among a module's globals, the candidate
        helpers of its functions (taken once per module within one ``mend``)."""
        found = self.global_helpers.get(id(globals_))
        if found is None:
            found = {
                n: v
                for n, v in globals_.items()
                if isinstance(v, types.FunctionType)
                or (isinstance(v, type) and not is_library_module(v.__module__))
            }
            self.global_helpers[id(globals_)] = found
            self.keep_alive.append(globals_)
        return found

    def _closure(
        self,
        fn: types.FunctionType,
        code: types.CodeType,
        helpers: Dict[str, Any],
        own_cells: Dict[str, types.CellType],
    ) -> Optional[tuple]:
        """The cells of ``code``'s free variables: the original's, those made for this code
        (a rewrapped decorator's, a torch module's), or a mended helper's."""
        original_cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        closure = []
        for name in code.co_freevars:
            if name in own_cells:
                closure.append(own_cells[name])
            elif name in original_cells:
                closure.append(original_cells[name])
            elif name in helpers:
                closure.append(self.cells[id(helpers[name])])
            else:
                raise ValueError(f"mended code needs the free variable {name!r}")
        return tuple(closure) or None

    def _collect_diagnostics(self, mended: _MendedFile, definition: Definition) -> None:
        for d in mended.diagnostics_in(definition.first_line, definition.last_line):
            if d not in self.seen_diagnostics:
                self.seen_diagnostics.add(d)
                self.report.diagnostics.append(d)

    # -- classes --------------------------------------------------------------------------

    def cls(self, klass: type, *, force_new: bool = False) -> type:
        """A subclass of ``klass`` whose own user-defined methods are mended and whose mended
        user base classes follow it in the MRO, so ``super().forward(...)`` reaches mended
        code too; ``klass`` itself when nothing changes and not ``force_new``."""
        base = getattr(klass, "__graphmend_original__", None)
        if isinstance(base, type) and klass.__dict__.get("__graphmend_original__") is base:
            if not force_new and klass.__dict__.get("__graphmend_made_with__") == self.made_with:
                # Mended the same way already: a module mended, then wrapped (DDP) and
                # compiled, is compiled as the object the wrapper holds, not a copy of it.
                return klass
            klass = base
        if id(klass) in self.classes and not force_new:
            return self.classes[id(klass)]
        if klass is object or is_library_module(klass.__module__):
            return klass
        self.classes[id(klass)] = klass
        namespace = self._members(klass)
        mended_bases = [
            m for m in (self.cls(b) for b in klass.__bases__) if m not in klass.__bases__
        ]
        if not namespace and not mended_bases and not force_new:
            return klass
        rebuilt = len(namespace)
        extra = dict(
            __module__=klass.__module__,
            __qualname__=klass.__qualname__,
            __doc__=klass.__doc__,
            __graphmend_original__=klass,
            __graphmend_made_with__=self.made_with,
        )
        try:
            mended = type(klass)(klass.__name__, (klass, *mended_bases), {**namespace, **extra})
        except TypeError:  # no consistent MRO: put the inherited mended members in one class
            flat: Dict[str, Any] = {}
            for owner in reversed(klass.__mro__):
                if owner is not object and not is_library_module(owner.__module__):
                    for name in owner.__dict__:
                        flat.pop(name, None)  # a more derived class overrides it
                    flat.update(self._members(owner))
            mended = type(klass)(klass.__name__, (klass,), {**flat, **extra})
        self.classes[id(klass)] = mended
        self.note(
            klass.__qualname__,
            "",
            0,
            "mended" if rebuilt or mended_bases else "unchanged",
            f"class: {rebuilt} member(s) rebuilt, {len(mended_bases)} mended base(s)",
        )
        return mended

    def _members(self, owner: type) -> Dict[str, Any]:
        namespace = {}
        for name, value in list(owner.__dict__.items()):
            if self.reach is not None and name not in self.reach:
                continue  # never run by the compiled call: left as it is
            replacement = self._member(value)
            if replacement is not value:
                namespace[name] = replacement
        return namespace

    def _member(self, value: Any) -> Any:
        if isinstance(value, types.FunctionType):
            return self.function(value)
        if isinstance(value, (staticmethod, classmethod)):
            inner = self.function(value.__func__)
            return value if inner is value.__func__ else type(value)(inner)
        if isinstance(value, property) and isinstance(value.fget, types.FunctionType):
            getter = self.function(value.fget)
            if getter is value.fget:
                return value
            return property(getter, value.fset, value.fdel, value.__doc__)
        return value

    # -- module instances -----------------------------------------------------------------

    def module(self, module: Any, memo: Dict[int, Any], *, top: bool = False) -> Any:
        """A shallow copy of ``module`` (parameters and buffers shared) whose class is mended,
        with its submodules mended likewise; modules with nothing to mend are shared."""
        if id(module) in memo:
            return memo[id(module)]
        memo[id(module)] = module  # cycles
        children = {
            name: (self.module(child, memo) if child is not None else None)
            for name, child in module._modules.items()
        }
        klass = self.cls(type(module), force_new=top)
        held = self._held_attributes(module)
        if (
            klass is type(module)
            and not top
            and not held
            and all(children[n] is module._modules[n] for n in children)
        ):
            return module
        twin = object.__new__(klass)
        state = dict(module.__dict__)
        for name, value in state.items():
            if (
                name.startswith("_")
                and isinstance(value, (dict, set))
                and not name.startswith("__")
            ):
                state[name] = copy.copy(value)
        state.update(held)
        object.__setattr__(twin, "__dict__", state)
        for name, child in children.items():
            twin._modules[name] = child
        memo[id(module)] = twin
        return twin

    # -- objects a module holds ---------------------------------------------------------

    def _held_attributes(self, module: Any) -> Dict[str, Any]:
        """The module's plain attributes that mending replaces in its copy (name -> the
        replacement): held objects of user classes, functions, bound methods, and tuples
        of those (``held``)."""
        replaced = {}
        for name, value in module.__dict__.items():
            replacement = self.held(value)
            if replacement is not value:
                replaced[name] = replacement
        return replaced

    def held(self, value: Any) -> Any:
        """What the mended copy of a module holds for one of its attribute values: a
        user function mended (``function``); a bound method of a plain object with its
        function mended, bound to the same object; a plain object of a user class its
        mended twin (``_twin``); a tuple of those rebuilt; anything else ``value`` itself.
        Lists and dicts are shared with the original as they are: a copy would not see
        what the program appends or assigns to the original (nor it, the copy's)."""
        if id(value) in self.held_objects:
            return self.held_objects[id(value)]
        if type(value) is tuple:
            items = tuple(self.held(item) for item in value)
            changed = any(new is not old for new, old in zip(items, value))
            replacement = items if changed else value
        elif isinstance(value, types.FunctionType):
            replacement = self.function(value)
        elif isinstance(value, types.MethodType):
            replacement = self._held_method(value)
        else:
            replacement = self._twin(value)
        self.held_objects[id(value)] = replacement
        return replacement

    def _held_method(self, method: types.MethodType) -> Any:
        """A bound method with its function mended, bound to the object's twin when it has
        one (the methods it calls on ``self`` run mended too; the state is the same)."""
        owner, function = method.__self__, method.__func__
        if _looks_like_torch_module(owner) or not isinstance(function, types.FunctionType):
            return method  # a module's method: the module's walk mends its class
        mended, bound_to = self.function(function), self.held(owner)
        if mended is function and bound_to is owner:
            return method
        return types.MethodType(mended, bound_to)

    def _twin(self, obj: Any) -> Any:
        """An instance of the mended class of ``obj``'s class that shares ``obj``'s
        ``__dict__``, so what a mended method sets (a scheduler's ``last_epoch``) is set on
        ``obj`` as well; ``obj`` itself when its class has nothing to mend, is a library's,
        or the twin could not behave exactly as ``obj`` (``_untwinnable``)."""
        klass = type(obj)
        if not _is_user_object(obj, self.user_classes):
            return obj
        reason = _untwinnable(obj)
        if reason is None:
            try:
                mended = self.cls(klass)
            except _Restart:
                raise
            except Exception as exc:  # never let mending break the program: keep the object
                mended, reason = klass, f"could not subclass: {type(exc).__name__}: {exc}"
        if reason is not None:
            self.note(klass.__qualname__, "", 0, "skipped", f"held object left as it is: {reason}")
            return obj
        if mended is klass:
            return obj
        twin: Any = object.__new__(mended)
        object.__setattr__(twin, "__dict__", obj.__dict__)
        self.note(klass.__qualname__, "", 0, "mended", "held object: a twin of the mended class")
        return twin


# What is never a held object to mend: classes (their metaclass), functions and methods
# (mended as functions), Python modules.
_NOT_HELD_OBJECTS = (
    type,
    types.FunctionType,
    types.MethodType,
    types.ModuleType,
    types.BuiltinFunctionType,
)


def _is_user_object(obj: Any, known: Dict[type, bool]) -> bool:
    """An instance of a user-defined class that is none of the things mended elsewhere
    (modules, classes, functions) or never (library objects, Python modules). ``known``:
    the answers for the classes seen before (a model holds thousands of attribute values
    of a few classes)."""
    klass = type(obj)
    found = known.get(klass)
    if found is None:
        found = known[klass] = not (
            not isinstance(klass.__module__, str)
            or is_library_module(klass.__module__)
            or issubclass(klass, _NOT_HELD_OBJECTS)
            or _is_module_class(klass)
        )
    return found


# A registry holds a few entries; a larger dict or list (a vocabulary) is data.
_REGISTRY_SIZE = 256


def _container_items(container: Any) -> list:
    return list(container.values() if type(container) is dict else container)


def _only_items_used(uses: List[Tuple[str, Any]]) -> bool:
    """Whether a function's ``uses`` of a global container (``codegen.global_uses``) only
    read an item's attribute or call an item: then reading the items through
    ``MendedItems`` cannot be told from reading the container."""
    allowed = ("item attribute", "keyed attribute", "item call", "keyed call")
    return bool(uses) and all(kind in allowed for kind, _ in uses)


def _items_of(value: Any) -> tuple:
    """``value``'s items when it is a tuple, else ``value`` alone."""
    return value if type(value) is tuple else (value,)


def _only_attributes_read(value: Any, uses: List[Tuple[str, Any]], known: Dict[type, bool]) -> bool:
    """Whether a function's ``uses`` of a global ``value`` (``codegen.global_uses``) cannot
    tell its twin from it: only attributes of the object (or of a tuple's user objects) are
    read; a tuple's other items, the same in its rebuilt copy, may be used in any way."""
    for kind, index in uses:
        if kind == "attribute" and type(value) is not tuple:
            continue
        if kind == "item attribute" and type(value) is tuple:
            continue
        if kind in ("item", "item call") and type(value) is tuple and isinstance(index, int):
            try:
                if not _is_user_object(value[index], known):
                    continue
            except IndexError:
                pass
        return False
    return True


def _module_global_writes(globals_: dict, names: Dict[str, Any]) -> set:
    """Which of ``names`` a function or method defined in the module of ``globals_`` assigns
    or deletes as a global: a search of the code of those that name one at all."""
    module = globals_.get("__name__")
    functions: List[types.FunctionType] = []
    for value in list(globals_.values()):
        if isinstance(value, types.FunctionType) and value.__globals__ is globals_:
            functions.append(value)
        elif isinstance(value, type) and value.__module__ == module:
            for member in vars(value).values():
                member = getattr(member, "__func__", getattr(member, "fget", member))
                if isinstance(member, types.FunctionType) and member.__globals__ is globals_:
                    functions.append(member)
    written: set = set()
    for function in functions:
        if codegen.may_load_any(function.__code__, names):
            written.update(n for n in codegen.global_writes(function.__code__) if n in names)
    return written


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement


def _untwinnable(obj: Any) -> Optional[str]:
    """Why a twin sharing ``obj``'s ``__dict__`` would not be ``obj`` in all but identity,
    or None. Its state must live in the dict alone: no slots, no base class written in C
    (a ``dict`` or ``Tensor`` subclass keeps its contents in the object), no ``__dict__``
    of its own making; no ``__del__`` (the twin's collection would run it a second time),
    not an enum member (compared by identity), and not holding itself (the twin would
    find the original there)."""
    import enum

    if isinstance(obj, enum.Enum):
        return "an enum member"
    for owner in type(obj).__mro__[:-1]:
        if not owner.__flags__ & _HEAP_TYPE:
            return f"its base {owner.__qualname__} is not a Python class"
        namespace = owner.__dict__
        if any(isinstance(v, types.MemberDescriptorType) for v in namespace.values()):
            return f"{owner.__qualname__} has __slots__"
        if "__del__" in namespace:
            return f"{owner.__qualname__} defines __del__"
        if "__dict__" in namespace and not isinstance(
            namespace["__dict__"], types.GetSetDescriptorType
        ):
            return f"{owner.__qualname__} defines __dict__"
    state = getattr(obj, "__dict__", None)
    if type(state) is not dict:
        return "no instance __dict__"
    if any(value is obj for value in state.values()):
        return "it holds itself"
    return None


def _copy_function(
    fn: types.FunctionType,
    code: types.CodeType,
    closure: Optional[tuple],
    rewrapped_cells: Dict[str, types.CellType],
) -> types.FunctionType:
    """A function with ``fn``'s globals, defaults and metadata and the given code/closure."""
    new = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = copy.copy(fn.__kwdefaults__)
    new.__dict__.update(fn.__dict__)
    for attr in ("__qualname__", "__doc__", "__module__", "__annotations__"):
        setattr(new, attr, getattr(fn, attr))
    if rewrapped_cells:
        new.__wrapped__ = next(iter(rewrapped_cells.values())).cell_contents
    new.__graphmend_original__ = fn
    return new


_NN_MODULE: Optional[type] = None


def _nn_module() -> type:
    global _NN_MODULE
    if _NN_MODULE is None:
        import torch

        _NN_MODULE = torch.nn.Module
    return _NN_MODULE


def _looks_like_torch_module(obj: Any) -> bool:
    return "torch" in sys.modules and isinstance(obj, _nn_module())


def _is_module_class(obj: Any) -> bool:
    return isinstance(obj, type) and "torch" in sys.modules and issubclass(obj, _nn_module())


def _attach_report(obj: Any, report: MendReport) -> None:
    try:
        object.__setattr__(obj, "__graphmend_report__", report)
    except (AttributeError, TypeError):
        _REPORTS_BY_ID[id(obj)] = report


_REPORTS_BY_ID: Dict[int, MendReport] = {}


def mend_report(obj: Any) -> Optional[MendReport]:
    """The ``MendReport`` of an object ``mend`` returned (None for anything else)."""
    report = getattr(obj, "__graphmend_report__", None)
    if isinstance(report, MendReport):
        return report
    return _REPORTS_BY_ID.get(id(obj))


def mend(obj: Any, *, report: bool = False, **rewrites: bool) -> Any:
    """Returns a mended copy of ``obj``: a function, a bound method, an ``nn.Module``
    instance or an ``nn.Module`` class, with every user function it reaches rewritten by
    ``mend_source`` (see docs/MENDER.md).

    The result is of the same kind and behaves like ``obj`` when run eagerly; under
    ``torch.compile`` it breaks the graph less. ``obj`` and everything it holds are left as
    they were (a module's copy shares its parameters and buffers, and holds twins of the
    plain user objects the module holds, sharing their state). Objects that cannot be
    mended (builtins, C functions, code without source) come back unchanged, with a note in
    the report. ``report=True`` returns ``(mended, MendReport)``; ``mend_report(mended)``
    finds the report later. One keyword per rewrite (``graphmend.options.REWRITES``:
    ``where``, ``defer``, ``trap``) switches it, all on by default.
    """
    result, mend_rep = _mend_with(obj, rewrite_switches(rewrites, "mend"), _reach_of(obj))
    return (result, mend_rep) if report else result


def _reach_of(obj: Any) -> Optional[frozenset]:
    """What a module instance's walk is limited to (``_compile_reach``); None: everything."""
    return _compile_reach(obj) if _looks_like_torch_module(obj) else None


def _mend_with(
    obj: Any, options: Dict[str, Any], reach: Optional[frozenset] = None
) -> Tuple[Any, MendReport]:
    bundle_options = options if reach is None else {**options, "reach": sorted(reach)}
    try:
        while True:
            mender = _Mender(options, _Bundle.of_root(obj, bundle_options), reach)
            try:
                result = _mend_object(mender, obj)
                break
            except _Restart:
                continue
        if mender.bundle is not None:
            mender.bundle.save(list(mender.mended_files.values()))
    finally:
        _save_compiled()
    if result is not obj:
        _attach_report(result, mender.report)
    else:
        _REPORTS_BY_ID[id(obj)] = mender.report
    return result, mender.report


def _mend_for_compile(obj: Any, options: Dict[str, Any]) -> Tuple[Any, MendReport]:
    """What ``compile`` hands to ``torch.compile``: the mended copy, or ``obj`` itself when
    the copy would be identical (all it reaches was mended at import, or has nothing to
    rewrite): an extra class level and a copied ``__dict__`` are not free on every call."""
    mended, mend_rep = _mend_with(obj, options, _reach_of(obj))
    return (mended if mend_rep.rebuilt else obj), mend_rep


# Special methods a compiled forward does not run (construction, pickling, printing); every
# other one may run implicitly (an operator, `self[i]`, `len(self)`, `__getattr__`).
_NOT_RUN_BY_FORWARD = frozenset(
    {
        "__init__",
        "__new__",
        "__init_subclass__",
        "__class_getitem__",
        "__post_init__",
        "__repr__",
        "__str__",
        "__format__",
        "__dir__",
        "__sizeof__",
        "__del__",
        "__reduce__",
        "__reduce_ex__",
        "__getstate__",
        "__setstate__",
        "__getnewargs__",
        "__getnewargs_ex__",
        "__copy__",
        "__deepcopy__",
    }
)


def _compile_reach(module: Any) -> frozenset:
    """The names of the class members a compiled call of ``module`` may run: ``forward``
    (of every submodule's class), the special methods Python may call implicitly, and,
    transitively, every member named in the code of one reached (an attribute or a global
    of that name: ``self.helper()``, a property, a method passed as a value). Read from the
    code objects alone. A member left out is not mended and runs as it is, so an over-wide
    reach costs time and a narrow one only fixes: it does not change what the program does.
    A module class (``graphmend.mend(cls)``) is walked whole: its instances are built later."""
    members: Dict[str, List[types.CodeType]] = {}
    held = _held_classes(module)
    for klass in {type(sub) for sub in module.modules()} | held:
        for owner in klass.__mro__:
            if owner is object or is_library_module(owner.__module__):
                continue
            for name, value in owner.__dict__.items():
                function = value.fget if isinstance(value, property) else value
                function = getattr(function, "__func__", function)  # static/class methods
                code = getattr(function, "__code__", None)
                if isinstance(code, types.CodeType):
                    members.setdefault(name, []).append(code)
    overrides = [n for n in _library_overrides(held) if n in members]
    todo = ["forward", *overrides] + [
        name
        for name in members
        if name.startswith("__") and name.endswith("__") and name not in _NOT_RUN_BY_FORWARD
    ]
    reach: set = set()
    while todo:
        name = todo.pop()
        if name in reach:
            continue
        reach.add(name)
        for code in members.get(name, ()):
            todo.extend(n for n in _names_in(code) if n in members and n not in reach)
    return frozenset(reach)


def _held_classes(module: Any) -> set:
    """The user classes of the plain objects the module tree holds as attributes, alone or
    in tuples (what ``_Mender.held`` may give twins)."""
    classes = set()
    known: Dict[type, bool] = {}
    for sub in module.modules():
        for value in sub.__dict__.values():
            for item in value if type(value) is tuple else (value,):
                if _is_user_object(item, known):
                    classes.add(type(item))
    return classes


def _library_overrides(classes: set) -> List[str]:
    """The members user classes define over a library base's (a scheduler's ``get_lr``):
    the library's methods, which the walk never sees, call them on the object. Not those a
    call does not run (construction, printing)."""
    names: List[str] = []
    for klass in classes:
        library = [o for o in klass.__mro__ if o is not object and is_library_module(o.__module__)]
        for owner in klass.__mro__:
            if owner in library or owner is object:
                continue
            for name in owner.__dict__:
                if name not in _NOT_RUN_BY_FORWARD and any(name in o.__dict__ for o in library):
                    names.append(name)
    return names


def _names_in(code: types.CodeType) -> List[str]:
    """The names a code object and the functions nested in it load (attributes, globals)."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.extend(_names_in(const))
    return names


def _mend_object(mender: _Mender, obj: Any) -> Any:
    if isinstance(obj, types.MethodType):
        owner = obj.__self__
        if _looks_like_torch_module(owner):
            twin = mender.module(owner, {}, top=True)
            return getattr(twin, obj.__func__.__name__)
        # Bound to the object's twin (when it has one), so the methods it calls on ``self``
        # run mended too, as for a method a module holds.
        return types.MethodType(mender.function(obj.__func__, force_new=True), mender.held(owner))
    if isinstance(obj, types.FunctionType):
        return mender.function(obj, force_new=True)
    if _looks_like_torch_module(obj):
        inner = getattr(obj, "_orig_mod", None)
        if type(obj).__name__ == "OptimizedModule" and _looks_like_torch_module(inner):
            mender.note(
                type(inner).__qualname__,
                "",
                0,
                "mended",
                "the torch.compile wrapper was dropped: compile the result",
            )
            return mender.module(inner, {}, top=True)
        return mender.module(obj, {}, top=True)
    if _is_module_class(obj):
        return _mended_module_class(mender, obj)
    if isinstance(obj, type):
        return mender.cls(obj, force_new=True)
    mender.note(
        getattr(obj, "__qualname__", repr(obj)),
        "",
        0,
        "skipped",
        f"not a Python function, method, module or class ({type(obj).__name__})",
    )
    return obj


def _mended_module_class(mender: _Mender, klass: type) -> type:
    """A mended subclass whose instances also get mended submodule classes: after the
    original ``__init__`` builds the submodules, the ones it created (not those passed in
    as arguments) are switched to their mended classes."""
    mended = mender.cls(klass, force_new=True)
    options = mender.options
    original_init = mended.__init__

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        if type(self) is not mended:
            return
        passed_in = set()
        for value in list(args) + list(kwargs.values()):
            if isinstance(value, _nn_module()):
                passed_in.update(id(m) for m in value.modules())
        subs = [sub for sub in self.modules() if sub is not self and id(sub) not in passed_in]
        try:
            while True:
                inner = _Mender(options)
                try:
                    classes = [inner.cls(type(sub)) for sub in subs]
                    break
                except _Restart:
                    continue
        finally:
            _save_compiled()
        for sub, klass_of_sub in zip(subs, classes):
            if klass_of_sub is not type(sub):
                sub.__class__ = klass_of_sub

    __init__.__qualname__ = f"{klass.__qualname__}.__init__"
    __init__.__doc__ = getattr(klass.__init__, "__doc__", None)
    mended.__init__ = functools.wraps(klass.__init__)(__init__)
    return mended
