"""``graphmend run script.py [args...]`` and ``graphmend warm PACKAGE``: a script run with
the import hook, and the hook's cache filled ahead of time.

The script runs as ``__main__`` (``sys.argv = [script, *args]``, the script's folder first
on ``sys.path``) with ``graphmend.install`` active for the packages named by ``--package``
(or configured in ``[tool.graphmend.hook]``), or by default for the packages the script
imports that define ``nn.Module`` subclasses. The script itself is mended too
(``mend_source``, entry points found in its text) unless ``--no-mend-script``; it falls back
to the original text when mending fails. What the script's own ``torch.compile`` returns
runs behind the compile boundary (``--no-boundary``: not), so deferred output appears where
plain Python prints it. See docs/HOOK.md.
"""

from __future__ import annotations

import argparse
import builtins
import functools
import importlib.machinery
import importlib.util
import os
import re
import sys
import traceback
import types
from typing import Iterable, List, Optional

from .. import _core
from .._source import decode_source
from ..files import UserError
from ..hook import never_mended

__all__ = ["imported_packages", "model_packages", "run", "warm"]

# A cheap sign that a package defines models: a subclass of nn.Module (however spelled) or
# of Hugging Face's PreTrainedModel.
_MODULE_TEXT = re.compile(
    rb"\bnn\.Module\b|\bPreTrainedModel\b|from\s+torch\.nn\s+import\s[^\n]*\bModule\b"
)
# Files scanned per package before giving up (a large package without models stops here).
_SCAN_LIMIT = 5000


# ---------------------------------------------------------------------------------------------
# Which packages.


def imported_packages(source: str, filename: str = "<script>") -> List[str]:
    """Top-level names of the absolute imports in ``source`` (anywhere in the file), in
    order of first appearance."""
    names = [
        module.split(".", 1)[0]
        for module, level in _core.imports(source, filename)
        if level == 0 and module
    ]
    return list(dict.fromkeys(names))


def _source_files(spec) -> Iterable[str]:
    from ..hook import _source_files as files_below

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
            from .._mend_source import mend_source
            from ..codegen import compile_text

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


def _report_findings(hook, script_result, path: str) -> list:
    """The sites of the hooked modules and of the script, as Findings."""
    from ..files import display_path
    from .findings import TextIndex, finding_of

    by_file = {}
    if hook is not None:
        for d in hook.report().diagnostics:
            by_file.setdefault(d.filename, []).append(d)
    if script_result is not None:
        by_file[path] = list(script_result.diagnostics)
    findings = []
    for filename, diagnostics in by_file.items():
        try:
            with open(filename, "rb") as handle:
                index = TextIndex(decode_source(handle.read(), filename))
        except (OSError, SyntaxError):
            index = TextIndex(b"")
        findings += [finding_of(d, display_path(filename), index) for d in diagnostics]
    return sorted(findings, key=lambda f: f.sort_key())


def _report(hook, script_result, path: str, options) -> None:
    from . import formats

    write = sys.stderr.write
    if hook is None:
        write("graphmend: no package hooked\n")
    else:
        write(f"graphmend: hooked {', '.join(hook.packages)}: {hook.stats}\n")
    if script_result is None:
        write(f"graphmend: script {path}: not mended\n")
    findings = _report_findings(hook, script_result, path)
    files = {"checked": len({f.path for f in findings}), "changed": 0, "errors": 0}
    stream = open(options.report_file, "w", encoding="utf-8") if options.report_file else sys.stderr
    try:
        if options.output_format in (None, "text"):
            style = formats.Style.for_stream(stream, options.color)
            for finding in findings:
                for line in formats.text_lines(finding, style):
                    stream.write(line + "\n")
            stream.write(formats.summary_line(findings, files["checked"], "run") + "\n")
        else:
            formats.render(options.output_format, "run", findings, files, stream)
    finally:
        if stream is not sys.stderr:
            stream.close()


def _flush_pending() -> int:
    """Replays side effects a torch.compile'd call deferred and nobody flushed: late, but
    not lost. Returns how many there were."""
    runtime = sys.modules.get("graphmend.runtime")
    if runtime is None:
        return 0
    count = len(runtime.pending())
    if count:
        runtime.flush()
    return count


def _compile_with_boundary():
    """Makes ``torch.compile`` put what it returns behind the compile boundary, as
    ``graphmend.compile`` does, so that a script compiling by itself sees its deferred
    output flushed after each compiled call (the order plain Python prints in). Returns
    a function that undoes it."""
    import torch

    from ..boundary import behind_boundary

    original = torch.compile

    def compile_(model=None, *args, **kwargs):
        if model is None:  # used as @torch.compile(...): a decorator factory
            return lambda fn: compile_(fn, *args, **kwargs)
        return behind_boundary(original(model, *args, **kwargs), like=model)

    torch.compile = functools.wraps(original)(compile_)

    def restore() -> None:
        torch.compile = original

    return restore


def _syntax_error(source: str, path: str) -> Optional[SyntaxError]:
    try:
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc
    return None


def run(options: argparse.Namespace, settings) -> int:
    path = options.script
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        source = decode_source(data, path).decode("utf-8", "surrogatepass")
    except OSError as exc:
        raise UserError(f"cannot open the script: {exc.strerror}", path) from None
    except SyntaxError as exc:  # an undecodable file: CPython's own message
        sys.stderr.write("".join(traceback.format_exception_only(type(exc), exc)))
        return 1
    error = _syntax_error(source, path)
    if error is not None:  # as `python script.py` shows it: no GraphMend frame
        sys.stderr.write("".join(traceback.format_exception_only(type(error), error)))
        return 1
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    packages = options.packages or list(settings.hook_packages) or model_packages(source, path)
    if options.list_packages:
        for name in packages:
            print(name)
        if not packages:
            sys.stderr.write("(none)\n")
        return 0

    from ..hook import install

    cache_dir = None if options.no_cache else (options.cache_dir or settings.hook_cache_dir or "")
    try:
        hook = (
            install(packages, cache_dir=cache_dir, ahead=settings.hook_ahead, **settings.rewrites)
            if packages
            else None
        )
    except ValueError as exc:  # a refused package name (torch, the stdlib...)
        raise UserError(str(exc)) from None
    code, script_result = _script_code(source, path, not options.no_mend_script)
    restore = None
    if not options.no_boundary and "torch" in imported_packages(source, path):
        restore = _compile_with_boundary()
    sys.argv = [path, *options.args]
    try:
        _exec_as_main(code, path)
    finally:
        late = _flush_pending()
        if late:
            sys.stderr.write(
                f"graphmend: {late} deferred print/log/warning call(s) replayed at exit; call "
                "graphmend.runtime.flush() after compiled calls the script makes outside "
                "torch.compile (docs/HOOK.md)\n"
            )
        if restore is not None:
            restore()
        if options.report:
            _report(hook, script_result, path, options)
    return 0


def _check_importable(names) -> None:
    for name in names:
        try:
            spec = importlib.util.find_spec(name.split(".", 1)[0])
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            raise UserError(f"no importable package named {name!r}")


def warm(options: argparse.Namespace, settings) -> int:
    from ..cache import default_cache_dir
    from ..hook import prepare

    _check_importable(options.packages)
    cache_dir = options.cache_dir or settings.hook_cache_dir or ""
    counter = _ProgressCounter(sys.stderr) if not options.quiet else None
    try:
        stats = prepare(
            options.packages,
            cache_dir=cache_dir,
            jobs=options.jobs,
            progress=counter,
            **settings.rewrites,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    finally:
        if counter is not None:
            counter.finish()
    if stats.mended + stats.cache_hits + stats.failed == 0:
        raise UserError(f"no source files found for {', '.join(options.packages)}")
    where = cache_dir or default_cache_dir()
    if not options.quiet:
        print(
            f"graphmend warm: {stats.mended} file(s) mended, {stats.cache_hits} already cached, "
            f"{stats.failed} failed, in {stats.seconds:.1f} s ({where})"
        )
    return 0


class _ProgressCounter:
    """``done/total files``, rewritten in place on ``stream`` when it is a terminal (nothing
    otherwise: a log file or a pipe gets the summary line only)."""

    def __init__(self, stream):
        self.stream = stream
        self.on_terminal = bool(getattr(stream, "isatty", lambda: False)())
        self.written = False

    def __call__(self, done: int, total: int) -> None:
        if self.on_terminal:
            self.stream.write(f"\r{done}/{total} files")
            self.stream.flush()
            self.written = True

    def finish(self) -> None:
        if self.written:
            self.stream.write("\n")
            self.stream.flush()
