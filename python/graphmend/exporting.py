"""``graphmend.export``: ``torch.export.export`` of the mended program, for a model whose
data-dependent branches stop the export ("Could not guard on data-dependent expression").

The program is mended as ``graphmend.compile`` mends it (``mender._mend_for_compile``) and
exported with the runtime's one-graph forms: ``torch.where``/``torch.cond`` for branches and
``torch._assert_async`` for traps; the original's program is kept where mending changes
nothing or only the original exports. What an exported graph cannot hold is said in the
report: the calls [Defer] meets while export traces (print, logging, warnings) are dropped
with an ``ExportSideEffectsDropped`` warning naming them, and a guard that needs the compile
boundary (``rerun_if``) or follows an in-place change of a buffer takes the original's path,
so the export stops there with its own reason."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
import warnings
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import mender
from .options import all_on as all_rewrites
from .reports import Diagnostic

__all__ = ["export", "ExportReport", "ExportBlocked", "ExportSideEffectsDropped"]


class ExportSideEffectsDropped(UserWarning):
    """Calls the original makes on every run (print, logging, warnings) that the exported
    program does not make: an exported graph holds tensor operations only."""


@dataclasses.dataclass
class ExportReport:
    """What ``graphmend.export`` did: whether the original exported, what was mended for the
    export, what still blocks it (export's own reason), and what the exported program does
    not do that the original does."""

    strict: bool
    exported: bool = False
    original_exported: bool = False
    original_reason: str = ""  # why torch.export stopped on the original ("" when it did not)
    reason: str = ""  # why it stopped on the mended program ("" when it exported)
    mended: List[Diagnostic] = dataclasses.field(default_factory=list)
    declined: List[Diagnostic] = dataclasses.field(default_factory=list)
    mended_reason: str = ""  # why the mended program did not export where the original did
    dropped: List[str] = dataclasses.field(default_factory=list)
    traps: int = 0  # in-graph asserts (aten._assert_async) of the exported graph

    def __str__(self) -> str:
        mode = "strict" if self.strict else "non-strict"
        if self.original_exported:
            lines = [f"graphmend export ({mode}): the original exports as it is"]
        else:
            lines = [
                f"graphmend export ({mode}): the original does not export: {self.original_reason}"
            ]
        if not self.exported:
            lines.append(f"  still blocked after mending {len(self.mended)} site(s): {self.reason}")
        elif not self.mended:
            why = (
                f" (the mended program does not: {self.mended_reason})"
                if self.mended_reason
                else ""
            )
            lines.append(f"  the original's program, nothing mended{why}")
        else:
            lines.append(f"  exported after mending {len(self.mended)} site(s)")
        lines += [f"  mended: {d}" for d in self.mended]
        lines += [f"  declined: {d}" for d in self.declined]
        lines += [f"  dropped from the exported program: {call}" for call in self.dropped]
        if self.traps:
            lines.append(
                f"  {self.traps} in-graph assert(s): a failure raises RuntimeError, "
                "graphmend.runtime.translate(error) gives the original's exception"
            )
        return "\n".join(lines)


class ExportBlocked(RuntimeError):
    """``torch.export`` stopped on the mended program too; ``report`` says where and why."""

    def __init__(self, report: ExportReport) -> None:
        super().__init__(f"torch.export still fails after mending: {report.reason}")
        self.report = report


def export(
    obj: Any,
    args: Any,
    kwargs: Optional[Dict[str, Any]] = None,
    *,
    strict: bool = False,
    report: bool = False,
    **export_kwargs: Any,
) -> Any:
    """``torch.export.export(graphmend.mend(obj), args, kwargs, strict=strict)``.

    ``obj`` is an ``nn.Module`` instance or a function (exported as the ``forward`` of a
    module that calls it). The original is exported first: the report says whether it
    exports, and export's reason when not. When mending rebuilds something, the mended
    program is exported and returned (its traps keep the asserts export drops from the
    original, a Python ``assert`` on a tensor value); the original's program when mending
    rebuilds nothing or only the original exports. When neither exports, ``ExportBlocked``
    is raised from export's error, its ``report`` naming export's reason on the mended
    program. The calls [Defer] meets while exporting are not in the exported program: they
    are listed in the report and announced with ``ExportSideEffectsDropped``.
    ``report=True`` returns ``(exported program or None, ExportReport)`` and raises nothing
    for a blocked export. ``export_kwargs`` go to ``torch.export.export``
    (``dynamic_shapes``, ...).
    """
    import torch

    if isinstance(obj, type):
        raise TypeError("graphmend.export takes a module instance or a function, not a class")
    args = (args,) if isinstance(args, torch.Tensor) else tuple(args)
    kwargs = dict(kwargs or {})
    result = ExportReport(strict=bool(strict))
    original, error, _ = _export(_as_module(obj), args, kwargs, strict, export_kwargs)
    result.original_exported = original is not None
    result.original_reason = _reason(error)
    target, mend_rep = mender._mend_for_compile(obj, all_rewrites())
    result.declined = mend_rep.declined
    if not mend_rep.rebuilt:  # nothing to mend: the original's program, or its error
        return _finish(result, original, error, report)
    result.mended = mend_rep.fixed
    program, mended_error, dropped = _export(
        _as_module(target), args, kwargs, strict, export_kwargs
    )
    if program is None and original is not None:
        # The mended program does not export where the original does: the original's.
        result.mended, result.mended_reason = [], _reason(mended_error)
        return _finish(result, original, None, report)
    result.dropped = dropped
    if program is not None:
        result.traps = _assert_count(program)
    if program is not None and dropped:
        warnings.warn(
            "graphmend.export: the exported program does not make these calls the original "
            "makes: " + "; ".join(dropped),
            ExportSideEffectsDropped,
            stacklevel=2,
        )
    return _finish(result, program, mended_error, report)


def _finish(
    result: ExportReport, program: Any, error: Optional[BaseException], report: bool
) -> Any:
    """``export``'s answer: the program (with the report when asked), or for a blocked
    export ``(None, report)``, or ``ExportBlocked`` raised from export's error."""
    result.exported = program is not None
    if program is None:
        result.reason = _reason(error)
        if not report:
            raise ExportBlocked(result) from error
    return (program, result) if report else program


def _as_module(obj: Any) -> Any:
    """``obj`` when it is a module; a function (or method) as the forward of a module."""
    import torch

    if isinstance(obj, torch.nn.Module):
        return obj
    if not callable(obj):
        raise TypeError(f"graphmend.export takes a module or a function, not {type(obj)!r}")
    return _function_module_class()(obj)


@functools.lru_cache(maxsize=1)
def _function_module_class() -> type:
    import torch

    class FunctionModule(torch.nn.Module):
        """A function exported as a module's forward (torch.export takes modules only)."""

        def __init__(self, function: Any) -> None:
            super().__init__()
            self.function = function

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            return self.function(*args, **kwargs)

    return FunctionModule


def _export(
    module: Any, args: tuple, kwargs: dict, strict: bool, export_kwargs: Dict[str, Any]
) -> Tuple[Any, Optional[BaseException], List[str]]:
    """(program or None, export's error or None, the calls recorded while tracing)."""
    import torch

    with _recorded_calls() as dropped:
        try:
            program = torch.export.export(module, args, kwargs, strict=strict, **export_kwargs)
        except Exception as exc:  # noqa: BLE001 (reported: export's reason)
            return None, exc, dropped
    return program, None, dropped


@contextlib.contextmanager
def _recorded_calls() -> Iterator[List[str]]:
    """Collects, then discards, what the runtime records while export traces: nothing
    replays them (no compile boundary), and their arguments are the trace's fake tensors.
    Records pending from before are kept as they were."""
    state = mender._runtime().state
    before, conditions = list(state.records), list(state.conditions)
    state.records.clear()
    state.export_dropped.clear()
    dropped: List[str] = []
    try:
        yield dropped
    finally:
        sites = list(dict.fromkeys(state.export_dropped))  # a trace may run a line twice
        dropped += [_describe_site(site) for site in sites]
        dropped += [_describe(record) for record in state.records]
        state.export_dropped.clear()
        state.records[:] = before
        state.conditions[:] = conditions


def _describe_site(site: tuple) -> str:
    """``print("loss", loss) at model.py:12`` for a call's site (file, line, function)."""
    import linecache

    text = linecache.getline(site[0], site[1]).strip()
    return f"{text or site[2]} at {site[0]}:{site[1]}"


def _describe(record: tuple) -> str:
    """A record the runtime made while export traced (a call made behind a condition, say):
    its site when it has one."""
    site = record[0]
    if isinstance(site, tuple) and len(site) >= 2:
        return _describe_site(site)
    return f"a call recorded by graphmend.runtime ({getattr(record[1], '__name__', record[1])})"


def _assert_count(program: Any) -> int:
    import torch

    targets = {torch.ops.aten._assert_async.msg, torch.ops.aten._assert_async.default}
    return sum(1 for node in program.graph.nodes if node.target in targets)


# A frame of the user's program in export's error text: `File "model.py", line 12, in forward`.
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _reason(error: Optional[BaseException]) -> str:
    """Export's reason in one line: the error's class and first line, and the innermost
    frame of the program it names (not torch's, not the runtime's)."""
    if error is None:
        return ""
    text = str(error).strip()
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    where = [m for m in _FRAME.finditer(text) if not _library_path(m.group(1))]
    place = f" ({where[-1].group(1)}:{where[-1].group(2)})" if where else ""
    return f"{type(error).__name__}: {first}{place}"


def _library_path(path: str) -> bool:
    import os

    import torch

    roots = (os.path.dirname(torch.__file__), os.path.dirname(os.path.abspath(__file__)))
    return any(os.path.abspath(path).startswith(root + os.sep) for root in roots)
