"""``python -m graphmend run script.py [args...]``: runs a script with the import hook.

The script runs as ``__main__`` (``sys.argv = [script, *args]``, the script's folder first
on ``sys.path``) with ``graphmend.install`` active for the packages named by ``--package``,
or by default for the packages the script imports that define ``nn.Module`` subclasses.
The script itself is mended too (``mend_source``, entry points found in its text) unless
``--no-mend-script``; it falls back to the original text when mending fails. See
docs/HOOK.md.
"""

from __future__ import annotations

import argparse
import builtins
import importlib.machinery
import importlib.util
import os
import re
import sys
import types
from typing import Iterable, List, Optional, Sequence

from . import _core
from .hook import never_mended

__all__ = ["main", "imported_packages", "model_packages"]

# A cheap sign that a package defines models: a subclass of nn.Module (however spelled) or
# of Hugging Face's PreTrainedModel.
_MODULE_TEXT = re.compile(rb"\bnn\.Module\b|\bPreTrainedModel\b|from\s+torch\.nn\s+import\s[^\n]*\bModule\b")
# Files scanned per package before giving up (a large package without models stops here).
_SCAN_LIMIT = 5000


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m graphmend", description="GraphMend tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "run",
        help="run a script with its model packages mended at import",
        description="Run SCRIPT as __main__ with the GraphMend import hook installed.",
    )
    run.add_argument(
        "--package",
        action="append",
        dest="packages",
        metavar="NAME",
        help="mend this package at import (repeatable); default: the packages the script "
        "imports that define nn.Module subclasses",
    )
    run.add_argument("--cache-dir", default="", help="the hook's cache (default: $GRAPHMEND_CACHE_DIR or ~/.cache/graphmend)")
    run.add_argument("--no-cache", action="store_true", help="mend every module, read and write no cache")
    run.add_argument("--no-mend-script", action="store_true", help="run the script's own code as it is")
    run.add_argument("--report", action="store_true", help="print what was mended to stderr at exit")
    run.add_argument("--list-packages", action="store_true", help="print the packages that would be hooked and exit")
    run.add_argument("script", help="the Python file to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    warm = commands.add_parser(
        "warm",
        help="mend packages into the hook's cache ahead of time",
        description="Mend every source file of PACKAGE into the import hook's cache (like "
        "compileall for .pyc), so the first start with the hook does no mending work.",
    )
    warm.add_argument("packages", nargs="+", metavar="PACKAGE")
    warm.add_argument("--cache-dir", default="", help="the hook's cache (default: $GRAPHMEND_CACHE_DIR or ~/.cache/graphmend)")
    warm.add_argument("--jobs", type=int, default=None, help="processes (default: one per CPU)")
    return parser


# ---------------------------------------------------------------------------------------------
# Which packages.


def imported_packages(source: str, filename: str = "<script>") -> List[str]:
    """Top-level names of the absolute imports in ``source`` (anywhere in the file), in
    order of first appearance."""
    names = [module.split(".", 1)[0] for module, level in _core.imports(source, filename)
             if level == 0 and module]
    return list(dict.fromkeys(names))


def _source_files(spec) -> Iterable[str]:
    from .hook import _source_files as files_below

    if spec.submodule_search_locations:
        yield from files_below(spec.submodule_search_locations)
    elif spec.origin and spec.origin.endswith(".py"):
        yield spec.origin


def _defines_modules(name: str) -> bool:
    """Whether an importable package's source mentions nn.Module / PreTrainedModel."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    for count, path in enumerate(_source_files(spec)):
        if count >= _SCAN_LIMIT:
            return False
        try:
            with open(path, "rb") as handle:
                if _MODULE_TEXT.search(handle.read()):
                    return True
        except OSError:
            continue
    return False


def model_packages(source: str, filename: str = "<script>") -> List[str]:
    """The packages the hook mends by default: imported by the script, not the standard
    library, torch and its companions or GraphMend, importable, and defining models."""
    return [
        name
        for name in imported_packages(source, filename)
        if not never_mended(name) and _defines_modules(name)
    ]


# ---------------------------------------------------------------------------------------------
# Running the script.


def _script_code(source: str, path: str, mend: bool):
    """(code, MendResult or None): the mended script's code, or the original's when mending
    is off, finds nothing or fails."""
    if mend:
        try:
            from ._mend_source import mend_source
            from .codegen import compile_text

            result = mend_source(source, path, trace_all=False)
            if result.error is None and result.changed:
                return compile_text(result.source, list(result.line_map), path), result
        except Exception:  # noqa: BLE001 (the original always runs)
            pass
    return compile(source, path, "exec", dont_inherit=True), None


def _exec_as_main(code, path: str) -> None:
    """Runs ``code`` in a fresh ``__main__`` module, as ``runpy.run_path`` does."""
    module = types.ModuleType("__main__")
    module.__dict__.update(
        __file__=path,
        __cached__=None,
        __package__=None,
        __spec__=None,
        __loader__=importlib.machinery.SourceFileLoader("__main__", path),
        __builtins__=builtins,
    )
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = module
    try:
        exec(code, module.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _report(hook, script_result, path: str) -> None:
    write = sys.stderr.write
    if hook is None:
        write("graphmend: no package hooked\n")
    else:
        report = hook.report()
        write(f"graphmend: hooked {', '.join(hook.packages)}: {hook.stats}\n")
        write(f"graphmend: imported modules: {len(report.fixed)} break site(s) fixed, {len(report.declined)} declined\n")
    if script_result is None:
        write(f"graphmend: script {path}: not mended\n")
    else:
        write(
            f"graphmend: script {path}: {len(script_result.fixed)} break site(s) fixed, "
            f"{len(script_result.declined)} declined\n"
        )


def _flush_pending() -> None:
    """Replays side effects a torch.compile'd call deferred and nobody flushed: late, but
    not lost."""
    runtime = sys.modules.get("graphmend.runtime")
    if runtime is not None and runtime.pending():
        runtime.flush()


def run(options: argparse.Namespace) -> int:
    path = options.script
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        sys.stderr.write(f"python -m graphmend run: cannot open {path!r}: {exc.strerror}\n")
        return 2
    from ._source import decode_source

    source = decode_source(data, path).decode("utf-8", "surrogatepass")
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    packages = options.packages or model_packages(source, path)
    if options.list_packages:
        for name in packages:
            print(name)
        return 0

    from .hook import install

    cache_dir = None if options.no_cache else options.cache_dir
    try:
        hook = install(packages, cache_dir=cache_dir) if packages else None
    except ValueError as exc:  # a refused package name (torch, the stdlib...)
        sys.stderr.write(f"python -m graphmend run: {exc}\n")
        return 2
    code, script_result = _script_code(source, path, not options.no_mend_script)
    sys.argv = [path, *options.args]
    try:
        _exec_as_main(code, path)
    finally:
        _flush_pending()
        if options.report:
            _report(hook, script_result, path)
    return 0


def warm(options: argparse.Namespace) -> int:
    from .cache import default_cache_dir
    from .hook import prepare

    try:
        stats = prepare(options.packages, cache_dir=options.cache_dir, jobs=options.jobs)
    except ValueError as exc:
        sys.stderr.write(f"python -m graphmend warm: {exc}\n")
        return 2
    where = options.cache_dir or default_cache_dir()
    print(f"graphmend warm: {stats.mended} file(s) mended, {stats.cache_hits} already cached, "
          f"{stats.failed} failed, in {stats.seconds:.1f} s ({where})")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    options = _parser().parse_args(argv)
    if options.command == "run":
        return run(options)
    if options.command == "warm":
        return warm(options)
    return 2  # argparse has already refused anything else
