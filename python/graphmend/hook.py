"""The import hook: mends library packages (``transformers``...) as their modules are imported.

    handle = graphmend.install(packages=["transformers"])
    import transformers            # every transformers module is mended as it loads
    ...
    handle.uninstall()             # or graphmend.uninstall(), or `with graphmend.install(...):`

How: ``importlib.machinery.SourceFileLoader.get_code`` is the one place every source module
passes through, whether it was found by ``sys.meta_path`` or loaded by a hand-made loader
(``importlib.util.spec_from_file_location``, ``SourceFileLoader(...).load_module()``). The
hook wraps that method: for a module of a listed package it returns the code of the mended
source instead of the ``.pyc``. Library code has its callers in other modules, so it is
mended with ``trace_all`` (every function counts as traced by Dynamo); mended code behaves
like the original when it runs eagerly, so code that is never compiled loses nothing.

Mended code is compiled under the original file name with every line number mapped back to
the original line, so tracebacks, ``inspect`` and Dynamo's break reports point at the file
on disk. Its deferred side effects replay at a compile boundary: call the model through
``graphmend.compile`` (which leaves hook-mended functions as they are), or call
``graphmend.runtime.flush()`` after a ``torch.compile``'d call.

The cache: the code object of each mended module (and its diagnostics) is stored with
``marshal`` under ``cache_dir`` (default ``$GRAPHMEND_CACHE_DIR`` or
``~/.cache/graphmend``), keyed by a digest of the source bytes, the file's path, the
interpreter's bytecode magic, GraphMend's version and build, and the rewrite options. A
change to any of those is a different key, so a stale entry is never read. Entries are
written to a temporary file and renamed into place (atomic on POSIX), so concurrent
processes see a whole entry or none; an entry that does not load is ignored and rewritten.

Never mended: ``torch`` and its companions, the standard library, GraphMend itself.
A module that fails to mend is imported unchanged with a ``GraphMendWarning`` saying why.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import importlib.machinery
import importlib.util
import os
import sys
import threading
import time
import warnings
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from . import cache, registry
from .cache import default_cache_dir
from .libraries import NEVER_MENDED, in_folders, is_library_file
from .options import switches as rewrite_switches
from .registry import mended_at_import
from .reports import MendReport, diagnostic_of

__all__ = [
    "install",
    "uninstall",
    "prepare",
    "ImportHook",
    "HookStats",
    "GraphMendWarning",
    "mended_at_import",
]


class GraphMendWarning(UserWarning):
    """A module of a hooked package was imported unchanged (the message says why)."""


@dataclasses.dataclass
class HookStats:
    """What a hook did: modules mended now, loaded from the cache, left unchanged because
    they failed to mend, and the seconds spent in the hook (mending, cache I/O, compiling).
    ``gc_seconds`` is the part of ``seconds`` spent in garbage collections that ran inside
    the hook: the interpreter collects when allocations pass a threshold, whoever allocates
    last, so a full collection over a large heap (torch's) lands in the hook or next to it
    by chance; ``seconds - gc_seconds`` is the hook's own work. ``ahead``: a helper process
    mended ahead of the import (``graphmend.ahead``); the modules it had ready count as
    ``cache_hits``, and its time is not in ``seconds`` (it runs beside the import)."""

    mended: int = 0
    cache_hits: int = 0
    failed: int = 0
    seconds: float = 0.0
    gc_seconds: float = 0.0
    ahead: bool = False

    def __str__(self) -> str:
        return (
            f"{self.mended} module(s) mended, {self.cache_hits} from the cache"
            f"{' (a helper mending ahead)' if self.ahead else ''}, "
            f"{self.failed} failed, {self.seconds * 1000:.1f} ms in the hook"
            f" ({self.gc_seconds * 1000:.1f} ms of it in garbage collections)"
        )


class _CollectionTimer:
    """Adds up the time of the garbage collections that run while it is entered."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started: Optional[float] = None

    def __enter__(self) -> "_CollectionTimer":
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started is not None:
            self.seconds += time.perf_counter() - self._started
            self._started = None


_lock = threading.RLock()
_hooks: List["ImportHook"] = []
_original_get_code = None
_original_was_own = False  # whether SourceFileLoader itself defined get_code before the patch


def never_mended(name: str) -> bool:
    """Whether package ``name`` is one the hook refuses: torch and its companions, the
    standard library, GraphMend itself."""
    top = name.split(".", 1)[0]
    return top in NEVER_MENDED or top in sys.stdlib_module_names


def _check_packages(packages: Iterable[str]) -> Tuple[str, ...]:
    names = tuple(dict.fromkeys(packages))
    if not names:
        raise ValueError("graphmend.install: name at least one package")
    for name in names:
        if not isinstance(name, str) or not name or name.startswith("."):
            raise ValueError(f"graphmend.install: {name!r} is not an absolute package name")
        if never_mended(name):
            raise ValueError(
                f"graphmend.install: {name!r} is never mended (torch and its companions, "
                "the standard library and GraphMend itself are left alone)"
            )
    return names


class ImportHook:
    """One ``install`` call: its packages, options, cache and statistics. Also a context
    manager that uninstalls it on exit."""

    def __init__(
        self,
        packages: Tuple[str, ...],
        options: Dict[str, bool],
        cache_dir: Optional[str],
        ahead: bool = False,
    ) -> None:
        self.packages = packages
        self.options = options
        self.cache_dir = cache_dir
        self._store = cache.Store(cache_dir)
        self.stats = HookStats()
        # filename -> (path as imported, diagnostics as the mender gives them) of each module
        # mended: turned into Diagnostic objects only when asked for, not by every import.
        self._found: Dict[str, Tuple[str, tuple]] = {}
        self._folders = _package_folders(packages)
        # Whether the next cache miss starts a helper process that mends ahead.
        self._may_start_helper = ahead and cache_dir is not None
        self._helper = None

    # -- which modules ---------------------------------------------------------------------

    def covers(self, fullname: Optional[str], path: str) -> bool:
        if not path.endswith(".py"):
            return False
        listed = bool(fullname) and any(
            fullname == name or fullname.startswith(name + ".") for name in self.packages
        )
        return (listed or in_folders(path, self._folders)) and not is_library_file(path)

    # -- mending ---------------------------------------------------------------------------

    def code_for(self, fullname: str, path: str, data: bytes):
        """The code object of the mended module, or None (with a warning) when it cannot be
        mended."""
        start = time.perf_counter()
        collections = _CollectionTimer()
        try:
            with collections:
                if self._helper is not None:
                    self._helper.tell(path)
                code, diagnostics = self._entry(path, data)
            self._found[os.path.abspath(path)] = (path, diagnostics)
            registry.record(path, self)
            return code  # None: nothing to rewrite, the loader's own code (and .pyc) serves
        except Exception as exc:  # noqa: BLE001 (a bug in the mender must not break the import)
            self.stats.failed += 1
            reason = (
                str(exc) if isinstance(exc, cache.Unmendable) else f"{type(exc).__name__}: {exc}"
            )
            warnings.warn(
                f"graphmend: {fullname} ({path}) imported unchanged: {reason}",
                GraphMendWarning,
                stacklevel=2,
            )
            return None
        finally:
            self.stats.seconds += time.perf_counter() - start
            self.stats.gc_seconds += collections.seconds

    def _entry(self, path: str, data: bytes):
        """(code, diagnostics) of a module: from the cache, else mended now and stored."""
        key = self._key(path, data)
        entry = self._store.load(key)
        if entry is not None:
            self.stats.cache_hits += 1
            return entry
        if self._may_start_helper:
            self._start_helper(path)
        entry = cache.mend_module(path, data, self.options)
        self.stats.mended += 1
        self._store.store(key, entry)
        return entry

    @property
    def diagnostics(self) -> Dict[str, list]:
        """filename -> [Diagnostic] of each module this hook mended."""
        return {filename: self.diagnostics_of(filename) for filename in self._found}

    def diagnostics_of(self, filename: str) -> Optional[list]:
        """The [Diagnostic] of ``filename`` if this hook mended it, else None."""
        found = self._found.get(os.path.abspath(filename))
        return None if found is None else [diagnostic_of(found[0], d) for d in found[1]]

    def report(self) -> MendReport:
        """A ``MendReport`` of every module this hook mended (diagnostics only)."""
        out = MendReport()
        for diagnostics in self.diagnostics.values():
            out.diagnostics.extend(diagnostics)
        return out

    def _start_helper_if_cold(self) -> None:
        """Starts mending ahead at once when a package's ``__init__`` is not in the cache:
        the helper then works while the program imports everything else (torch, ...)."""
        if not self._may_start_helper:
            return
        start = time.perf_counter()
        for folder in self._folders:
            path = os.path.join(folder, "__init__.py")
            try:
                with open(path, "rb") as handle:
                    key = self._key(path, handle.read())
            except OSError:
                continue
            # Whether the entry is there is enough: the import loads it (once) soon after.
            if not os.path.isfile(self._store.path(key)):
                self._start_helper(None)
                break
        self.stats.seconds += time.perf_counter() - start

    def _start_helper(self, path: Optional[str]) -> None:
        """Starts mending ahead (``graphmend.ahead``), at install or on the first cache
        miss: a filled cache never pays for the helper. ``path``: the module being imported."""
        from . import ahead

        self._may_start_helper = False
        if not ahead.enabled():
            return
        try:
            self._helper = ahead.Helper(self)
        except OSError:
            return  # no process to be had: the import mends alone, as without the helper
        self.stats.ahead = True
        if path is not None:
            self._helper.tell(path)

    # -- the cache -------------------------------------------------------------------------

    def _key(self, path: str, data: bytes) -> str:
        return self._store.key(path, data, self.options)

    # -- lifetime --------------------------------------------------------------------------

    def uninstall(self) -> None:
        """Stops mending for this hook's packages (modules already imported stay mended)."""
        if self._helper is not None:
            self._helper.close()
            self._helper = None
        with _lock:
            if self in _hooks:
                _hooks.remove(self)
            if not _hooks:
                _unpatch_loader()

    @property
    def installed(self) -> bool:
        return self in _hooks

    def __enter__(self) -> "ImportHook":
        return self

    def __exit__(self, *exc_info) -> None:
        self.uninstall()

    def __repr__(self) -> str:
        state = "installed" if self.installed else "uninstalled"
        return f"<graphmend.ImportHook {state} packages={list(self.packages)} {self.stats}>"


def _package_folders(packages: Tuple[str, ...]) -> List[str]:
    """The folders of the packages that can be found without importing them (top-level
    packages only: finding a subpackage would import its parent)."""
    folders = []
    for name in packages:
        if "." in name:
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        for folder in (spec.submodule_search_locations or []) if spec else []:
            folders.append(os.path.abspath(folder))
    return folders


def _source_files(folders: Iterable[str]) -> Iterable[str]:
    """Every ``.py`` file below ``folders``, in a stable order."""
    for folder in folders:
        for root, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(root, name)


def _prepare_files(job) -> Tuple[int, int, int]:
    """Fills the cache for some files (one unit of ``prepare``'s work): the modules mended,
    found in the cache and failed."""
    packages, options, cache_dir, paths = job
    hook = ImportHook(packages, options, cache_dir)
    for path in paths:
        try:
            with open(path, "rb") as handle:
                hook._entry(path, handle.read())
        except Exception:  # noqa: BLE001 (the import will warn about this file, with why)
            hook.stats.failed += 1
    return hook.stats.mended, hook.stats.cache_hits, hook.stats.failed


# Files per unit of work of ``prepare``: small enough that the workers stay balanced and the
# progress counter moves, large enough that handing out units costs nothing.
_PREPARE_CHUNK = 32


def prepare(
    packages: Iterable[str],
    *,
    cache_dir: Optional[str] = "",
    jobs: Optional[int] = None,
    progress: Optional[Callable[[int, int], None]] = None,
    **rewrites: bool,
) -> HookStats:
    """Mends every source file of ``packages`` into the cache ahead of time, as
    ``compileall`` writes ``.pyc`` files, so that the first start of a program with the hook
    does no mending work. The options must be those the hook will be installed with.
    ``jobs`` processes share the work (default: one per CPU). ``progress(done, total)``, if
    given, is called with the number of files done so far, after each unit of work."""
    names = _check_packages(packages)
    options, cache_dir = _settings(rewrites, cache_dir, "prepare")
    if cache_dir is None:
        raise ValueError("graphmend.prepare: a cache directory is needed")
    started = time.perf_counter()
    paths = list(_source_files(_package_folders(names)))
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(paths) or 1))
    chunks = [paths[i : i + _PREPARE_CHUNK] for i in range(0, len(paths), _PREPARE_CHUNK)]
    shares = [(names, options, cache_dir, chunk) for chunk in chunks]
    results: List[Tuple[int, int, int]] = []
    done = 0
    with contextlib.ExitStack() as stack:
        if jobs == 1:
            done_units = map(_prepare_files, shares)
        else:
            import multiprocessing

            pool = stack.enter_context(multiprocessing.get_context("spawn").Pool(jobs))
            done_units = pool.imap_unordered(_prepare_files, shares)
        for result in done_units:
            results.append(result)
            done += sum(result)  # each file is mended, found in the cache or failed
            if progress is not None:
                progress(done, len(paths))
    stats = HookStats(*(sum(column) for column in zip(*results)))
    stats.seconds = time.perf_counter() - started
    return stats


def _settings(rewrites: Dict[str, bool], cache_dir: Optional[str], caller: str):
    """(rewrite switches, cache folder) of ``install`` and ``prepare``: ``""`` is the default
    folder, None no cache."""
    return rewrite_switches(rewrites, caller), default_cache_dir() if cache_dir == "" else cache_dir


# ---------------------------------------------------------------------------------------------
# The patched loader.


def _hook_for(fullname: Optional[str], path: str) -> Optional[ImportHook]:
    for hook in reversed(_hooks):
        if hook.covers(fullname, path):
            return hook
    return None


def _get_code(self, fullname):
    """``SourceFileLoader.get_code`` with the hook: the mended code for a hooked package's
    module, the loader's own answer for everything else."""
    hook = None
    if _hooks:
        try:
            path = self.get_filename(fullname)
        except ImportError:
            path = ""
        hook = _hook_for(fullname, path) if path else None
    if hook is not None:
        try:
            data = self.get_data(path)
        except OSError:
            data = None
        if data is not None:
            code = hook.code_for(fullname, path, data)
            if code is not None:
                return code
    original = _original_get_code or importlib.machinery.SourceLoader.get_code
    return original(self, fullname)


def _patch_loader() -> None:
    global _original_get_code, _original_was_own
    if _original_get_code is None:
        loader = importlib.machinery.SourceFileLoader
        # Another tool may have patched get_code first: remember whether to put it back.
        _original_was_own = "get_code" in loader.__dict__
        _original_get_code = loader.get_code
        loader.get_code = _get_code


def _unpatch_loader() -> None:
    global _original_get_code
    if _original_get_code is not None:
        loader = importlib.machinery.SourceFileLoader
        # When something patched it after us, its wrapper stays (and still reaches _get_code,
        # which falls through to the inherited method once no hook is left).
        if loader.__dict__.get("get_code") is _get_code:
            if _original_was_own:
                loader.get_code = _original_get_code
            else:
                del loader.get_code  # the inherited SourceLoader.get_code shows through again
        _original_get_code = None


def install(
    packages: Iterable[str],
    *,
    cache_dir: Optional[str] = "",
    ahead: bool = True,
    **rewrites: bool,
) -> ImportHook:
    """Mends the modules of ``packages`` (and their subpackages) as they are imported, until
    the returned hook is uninstalled (``hook.uninstall()``, ``graphmend.uninstall()``, or the
    end of a ``with graphmend.install(...):`` block).

    Modules imported before ``install`` stay as they are: a listed package that is already
    imported gets a ``GraphMendWarning`` (its submodules imported later are mended).
    ``cache_dir``: ``""`` for the default (``$GRAPHMEND_CACHE_DIR`` or
    ``~/.cache/graphmend``), ``None`` for no cache. ``where=False`` (one keyword per
    rewrite, ``graphmend.options.REWRITES``) switches a rewrite off, as in
    ``graphmend.mend``. ``ahead``: with a cache that lacks a package's
    ``__init__`` (now, or at the first cache miss), start a helper process that mends the
    modules the import reaches next into the cache (``graphmend.ahead``;
    ``GRAPHMEND_AHEAD=0`` turns it off too).
    """
    names = _check_packages(packages)
    hook = ImportHook(names, *_settings(rewrites, cache_dir, "install"), ahead=ahead)
    loaded = [name for name in names if name in sys.modules]
    if loaded:
        warnings.warn(
            f"graphmend.install: {', '.join(loaded)} already imported; modules imported "
            "before install stay unmended (install the hook before importing them)",
            GraphMendWarning,
            stacklevel=2,
        )
    with _lock:
        _hooks.append(hook)
        _patch_loader()
    hook._start_helper_if_cold()
    return hook


def uninstall() -> None:
    """Removes every hook ``install`` added (the last one restores the loader)."""
    with _lock:
        for hook in list(_hooks):
            hook.uninstall()
