"""Mending ahead: a helper process fills the import hook's cache with the modules the import
is about to reach, while the importing process runs their parents' module bodies.

A first start with an empty cache mends every module it imports: a few hundred
milliseconds of C++ and ``compile`` for a large package, on the importing thread. Most of it
can run beside the import instead. When a package's ``__init__`` is not in the cache at
``install`` (or at the first cache miss), the hook starts one helper (``python -c``: the
same interpreter and GraphMend, never a ``fork`` of a process that may hold torch's threads)
and tells it the path of every module the import loads. The helper reads each such
module's import statements (a scan of the text, not an import: nothing of the package runs
in the helper), finds the files they name inside the hooked packages, and mends them into
the cache as the hook would (``graphmend.cache``), depth first and the most recent request first;
after a module's imports, the own modules of the packages it imports (a lazy package loads
some of them on first use), and of its own package when the import loads that. With nothing asked for, it mends the modules directly in each package folder,
largest first (a package's core) and what they import. The import finds them in the cache.

Nothing the helper does can change what runs: an entry is the one the importing process
would have written, keyed by the source it was mended from, and written atomically. A
module the helper has not reached yet (or is mending at that moment) is mended by the
importing process as before. The helper only reads files and writes the cache, at a lower
priority than the import (on a busy machine it yields), and only while the import asks for
modules (within ``_QUIET`` seconds of its last request: then the
program needs the CPU for other things); it stops when the hook is uninstalled or the
process exits, or after ``_IDLE_EXIT`` seconds without a request.

A thread would not do: the mender runs without the GIL, but compiling to bytecode holds
it, and so does the import, all the time.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import sys
import threading
import time
from typing import Dict, Iterable, List, Optional, Tuple

__all__ = ["Helper", "static_imports", "enabled"]

# `from .a.b import c, d` / `from pkg.a import (c,` / `import pkg.a.b as x, pkg.c`, at the start
# of a line; the indentation tells module-level statements from those in functions.
_FROM = re.compile(r"^([ \t]*)from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w, \t]*)", re.M)
_IMPORT = re.compile(r"^([ \t]*)import[ \t]+([\w., \t]+)", re.M)
# Statements at column 0 whose indented body still runs at import time.
_IMPORT_TIME_BLOCK = re.compile(r"(if|elif|else|try|except|finally|with)\b")
_NEVER_RUN = re.compile(r"if[ \t]+(typing\.)?TYPE_CHECKING\b")


def enabled() -> bool:
    """Whether the hook may start a helper: not with ``GRAPHMEND_AHEAD=0``, nor on one CPU
    (there it would take its time from the import)."""
    if os.environ.get("GRAPHMEND_AHEAD", "1") == "0" or not sys.executable:
        return False
    return _usable_cpus() > 1


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def static_imports(path: str, text: str, roots: Dict[str, str]) -> List[str]:
    """The files of ``roots`` (top-level package name -> folder) that the module at ``path``
    imports when its body runs, in source order (parent packages first). Only a guess for
    ordering work: imports inside functions and under ``TYPE_CHECKING`` are left out, and
    imports written in ways the scan does not read are missed."""
    package = os.path.dirname(path)
    found: List[str] = []
    for match in _import_statements(text):
        if match.re is _FROM:
            _, dots, module, names = match.groups()
            base = _relative_base(package, len(dots)) if dots else None
            if dots and base is None:
                continue
            target = _package_or_module(base, module) if dots else _absolute(module, roots)
            if target and target[-1].endswith("__init__.py"):  # names may be submodules
                folder = os.path.dirname(target[-1])
                for name in _first_words(names):
                    target += _module_files(folder, name)
            found += target
        else:
            for module in _first_words(match.group(2)):
                found += _absolute(module, roots)
    return list(dict.fromkeys(found))


def _first_words(clauses: str) -> List[str]:
    """``a as b, c`` -> ``[a, c]``."""
    return [clause.split()[0] for clause in clauses.split(",") if clause.split()]


def _import_statements(text: str) -> Iterable[re.Match]:
    """The import statements that run with the module body, in source order."""
    block_runs = True  # whether the column-0 statement that opens the current block runs
    matches = sorted([*_FROM.finditer(text), *_IMPORT.finditer(text)], key=lambda m: m.start())
    opener_lines = re.finditer(r"^(\S.*)$", text, re.M)
    opener = next(opener_lines, None)
    for match in matches:
        while opener is not None and opener.start() <= match.start():
            line = opener.group(1)
            block_runs = bool(_IMPORT_TIME_BLOCK.match(line)) and not _NEVER_RUN.match(line)
            opener = next(opener_lines, None)
        if not match.group(1) or block_runs:
            yield match


def _relative_base(package: str, level: int) -> Optional[str]:
    base = package
    for _ in range(level - 1):
        base = os.path.dirname(base)
    return base or None


def _package_or_module(base: str, dotted: str) -> List[str]:
    """``from .x import ...`` loads x; ``from . import ...`` the package itself."""
    if dotted:
        return _module_files(base, dotted)
    package = os.path.join(base, "__init__.py")
    return [package] if os.path.isfile(package) else []


def _absolute(module: str, roots: Dict[str, str]) -> List[str]:
    top, _, rest = module.partition(".")
    folder = roots.get(top)
    if folder is None:
        return []
    return [os.path.join(folder, "__init__.py")] + _module_files(folder, rest)


def _module_files(base: str, dotted: str) -> List[str]:
    """The files that importing ``dotted`` below folder ``base`` loads: each package's
    ``__init__.py`` on the way, then the module (a file or a package)."""
    files: List[str] = []
    folder = base
    for part in filter(None, dotted.split(".")):
        if not part.isidentifier():
            return files
        package = os.path.join(folder, part, "__init__.py")
        if os.path.isfile(package):
            files.append(package)
            folder = os.path.join(folder, part)
            continue
        module = os.path.join(folder, part + ".py")
        if os.path.isfile(module):
            files.append(module)
        return files
    return files


# ---------------------------------------------------------------------------------------------
# The importing side.


class Helper:
    """The helper process of one hook, as the importing process sees it: ``tell`` it the
    modules being imported; ``close`` it (also done at exit, and in a forked child, which
    must not keep the helper's pipe open)."""

    def __init__(self, hook) -> None:
        import subprocess  # here: the helper process itself never needs it

        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        config = {
            "packages": list(hook.packages),
            "folders": hook._folders,
            "options": hook.options,
            "cache_dir": hook.cache_dir,
            "quiet": _QUIET,
            "idle_exit": _IDLE_EXIT,
        }
        self._process: Optional[subprocess.Popen] = subprocess.Popen(
            [sys.executable, "-c", _HELPER_MAIN.format(here=here)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _live.add(self)
        atexit.register(self.close)
        self._send(json.dumps(config))

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def tell(self, path: str) -> None:
        """The import is loading ``path`` now."""
        self._send(os.path.abspath(path))

    def _send(self, line: str) -> None:
        process = self._process
        if process is None:
            return
        try:
            process.stdin.write(line.encode("utf-8", "surrogateescape") + b"\n")
            process.stdin.flush()
        except (OSError, ValueError):  # the helper has gone (or stopped when idle): no matter
            self.close()

    def close(self) -> None:
        """Stops the helper: it finishes the module it is on (its entry is written whole or
        not at all) and exits."""
        process, self._process = self._process, None
        if process is None:
            return
        _live.discard(self)
        atexit.unregister(self.close)
        for step in (lambda: process.stdin.write(_STOP + b"\n"), process.stdin.close):
            try:
                step()
            except (OSError, ValueError):  # it has gone already
                pass
        import subprocess

        try:
            process.wait(timeout=_CLOSE_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def _forget_in_child(self) -> None:
        """In a forked child: drop this copy of the pipe; the parent still owns the helper."""
        process, self._process = self._process, None
        atexit.unregister(self.close)
        if process is not None:
            try:
                process.stdin.close()
            except (OSError, ValueError):
                pass
            process.returncode = 0  # not this process's child: never waited for or warned about


_live: "set[Helper]" = set()


def _after_fork_in_child() -> None:
    for helper in list(_live):
        helper._forget_in_child()
    _live.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)

# The helper imports this GraphMend (not whatever else its path finds first), and nothing of
# the hooked packages.
_HELPER_MAIN = "import sys; sys.path.insert(0, {here!r}); from graphmend.ahead import main; main()"
_STOP = b"\0stop"  # not a path: the importing process is done
_CLOSE_TIMEOUT = 2.0  # seconds: the longest single module mends in a fraction of that
_NICENESS = 10  # added to the helper's: it runs when a CPU is free, not instead of the import
_QUIET = 1.0  # seconds without a request after which the import is taken to be over
_IDLE_EXIT = 10.0  # seconds without a request before the helper exits by itself


# ---------------------------------------------------------------------------------------------
# The helper process.


def main() -> None:
    """The helper's loop: the configuration on the first line of stdin, then one path per
    line, each a module the import is loading."""
    from . import cache
    from .libraries import in_folders, is_library_file

    _lower_priority()
    # The thread reading requests must see each one at once (not a switch interval late):
    # a module the import has asked for is one the helper must not also mend.
    sys.setswitchinterval(0.0005)
    config = json.loads(sys.stdin.buffer.readline())
    options, folders = config["options"], config["folders"]  # as the importing process has them
    store = cache.Store(config["cache_dir"])
    roots = {os.path.basename(folder): folder for folder in folders}
    idle = _largest_first(f for folder in folders for f in _modules_in(folder))
    work = _Work(idle, config["quiet"], config["idle_exit"])
    threading.Thread(target=work.read, args=(sys.stdin.buffer,), daemon=True).start()
    for path, mend in iter(work.next, None):
        text = _read(path)
        if text is None:
            continue
        if (
            mend
            and path.endswith(".py")
            and in_folders(path, folders)
            and not is_library_file(path)
        ):
            try:
                _mend_into(store, path, text, options)
            except Exception:  # noqa: BLE001 (the import mends it again, and warns with why)
                pass
        imports = static_imports(path, text.decode("utf-8", "replace"), roots)
        work.scanned(path, imports, _own_modules(path, imports, requested=not mend))


def _mend_into(store, path: str, data: bytes, options: Dict[str, bool]) -> None:
    """Mends the module into the cache as the import hook would (the same entry, the same
    key), unless it is there already."""
    from . import cache

    key = store.key(path, data, options)
    if store.load(key) is None:
        store.store(key, cache.mend_module(path, data, options))


def _lower_priority() -> None:
    """On a busy machine the helper yields to the import (and to everything else): it only
    uses a CPU nobody else wants."""
    try:
        os.nice(_NICENESS)
    except (AttributeError, OSError):
        pass


def _own_modules(path: str, imports: List[str], requested: bool) -> List[str]:
    """What to mend after a module's imports: the own modules of the packages it imports, and
    its own package's when the import loads that package. A package is likely to load some of
    its modules, lazily too (transformers' subpackages import on first use, which no scan of
    import statements sees coming)."""
    packages = [p for p in imports if os.path.basename(p) == "__init__.py"]
    if requested and os.path.basename(path) == "__init__.py":
        packages.insert(0, path)
    return [m for p in packages for m in _largest_first(_modules_in(os.path.dirname(p)))]


def _modules_in(folder: str) -> List[str]:
    """The modules directly in a package folder."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [os.path.join(folder, name) for name in names if name.endswith(".py")]


def _largest_first(paths: Iterable[str]) -> List[str]:
    return sorted(paths, key=_size, reverse=True)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


class _Work:
    """The helper's stack of files: each module the import asks for goes on top (the
    import's next modules are its imports), and a file's imports go on top of it, the first
    on top (the import runs them in that order, depth first). A file is mended once, unless
    the import asked for it first (it mends that one itself), and scanned once: when the
    import asks for a file scanned already, its imports go on top again.

    The helper works only while the import does: once it has asked for nothing for
    ``quiet`` seconds, what is left waits for its next request (the program has moved on,
    to compiling perhaps, and needs the CPU), and after ``idle_exit`` seconds the helper
    exits."""

    def __init__(self, idle: List[str], quiet: float, idle_exit: float) -> None:
        self._quiet, self._idle_exit = quiet, idle_exit
        self._stack: List[Tuple[str, bool]] = []
        # When the stack is empty: the modules directly in each package folder (a package's
        # core, which its subpackages import), largest first. Taken from the end.
        self._idle = [(path, True) for path in reversed(idle)]
        self._mended: set = set()  # mended here, or asked for by the import
        self._imports: Dict[str, List[str]] = {}  # of each file scanned
        self._closed = False
        self._last_request = time.monotonic()  # the helper starts when the import does
        self._ready = threading.Condition()

    def read(self, stream) -> None:
        """Takes the import's requests from ``stream`` until it stops or closes."""
        for line in stream:
            line = line.rstrip(b"\n")
            if line == _STOP:
                break
            self.request(line.decode("utf-8", "surrogateescape"))
        self.close()

    def request(self, path: str) -> None:
        """The import is loading ``path``."""
        with self._ready:
            self._mended.add(path)
            self._stack.append((path, False))
            self._last_request = time.monotonic()
            self._ready.notify()

    def close(self) -> None:
        with self._ready:
            self._closed = True
            self._ready.notify()

    def scanned(self, path: str, imports: List[str], then: List[str]) -> None:
        """``path`` imports ``imports``; ``then``: what to mend after them, first first."""
        with self._ready:
            self._imports[path] = imports
            self._push(then)
            self._push(imports)

    def _push(self, paths: List[str]) -> None:
        self._stack.extend((path, True) for path in reversed(paths) if path not in self._mended)

    def next(self) -> Optional[Tuple[str, bool]]:
        """The next file to scan and whether to mend it first; None once the import is
        done, or has asked for nothing for ``idle_exit`` seconds."""
        with self._ready:
            while not self._closed:
                quiet = time.monotonic() - self._last_request
                if quiet < self._quiet and (self._stack or self._idle):
                    path, mend = (self._stack or self._idle).pop()
                    if path in self._imports:
                        if not mend:  # asked for again
                            self._push(self._imports[path])
                        continue
                    mend = mend and path not in self._mended
                    self._mended.add(path)
                    return path, mend
                if quiet >= self._idle_exit:
                    return None
                working = quiet < self._quiet  # but nothing to do: until a request or quiet
                self._ready.wait(timeout=(self._quiet if working else self._idle_exit) - quiet)
            return None
