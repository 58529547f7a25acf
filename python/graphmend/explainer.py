"""``graphmend.explain``: Dynamo's graphs and breaks of one call, each break with
GraphMend's tag when ``mend_source`` reports a break site on its line."""

from __future__ import annotations

import contextlib
import importlib
import linecache
import os
from typing import Any, Iterator, List, Optional, Tuple

from . import boundary, mender
from .options import all_on as all_rewrites
from .registry import import_diagnostics
from .reports import BreakInfo, Diagnostic, ExplainReport

__all__ = ["explain"]


def _first_line_of(text: str) -> str:
    for line in str(text).splitlines():
        line = line.strip()
        if line:
            return line
    return ""


def _library_file(filename: str) -> bool:
    """Files of torch and of GraphMend itself (the runtime frames of mended code)."""
    import torch

    roots = [os.path.dirname(torch.__file__), os.path.dirname(os.path.abspath(__file__))]
    path = os.path.abspath(filename)
    return any(path.startswith(root + os.sep) for root in roots)


def _user_frame(reason: Any) -> Tuple[str, int]:
    """The innermost frame of the break's stack that is the user's code."""
    stack = list(getattr(reason, "user_stack", None) or [])
    for frame in reversed(stack):
        filename = getattr(frame, "filename", "")
        if filename and not _library_file(filename):
            return filename, int(getattr(frame, "lineno", 0) or 0)
    if stack:
        return getattr(stack[-1], "filename", ""), int(getattr(stack[-1], "lineno", 0) or 0)
    return "", 0


# Frameworks whose own code breaks the graph by design, by the folder of torch their frames
# are in: FSDP2's hooks around each sharded module are excluded from tracing (they gather
# and free the parameters), so a compiled call breaks at every module boundary they wrap.
_FRAMEWORKS = (
    (("distributed", "fsdp"), "FSDP2 hooks"),
    (("nn", "parallel"), "DDP"),
)


def _framework_frame(*stacks: Any) -> str:
    """The framework (``_FRAMEWORKS``) a frame of these stacks belongs to, or ""."""
    import torch

    root = os.path.dirname(torch.__file__)
    for stack in stacks:
        for frame in reversed(list(stack or ())):
            path = os.path.abspath(getattr(frame, "filename", "") or "")
            for folder, name in _FRAMEWORKS:
                if path.startswith(os.path.join(root, *folder) + os.sep):
                    return name
    return ""


def _runtime_frame(reason: Any) -> str:
    """The graphmend.runtime function on the break's stack, or ""."""
    runtime = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runtime")
    for frame in reversed(list(getattr(reason, "user_stack", None) or [])):
        if os.path.dirname(os.path.abspath(getattr(frame, "filename", ""))) == runtime:
            return str(getattr(frame, "name", ""))
    return ""


def _tag_for(filename: str, line: int) -> Optional[Diagnostic]:
    if not filename or not line:
        return None
    diagnostics = import_diagnostics(filename)  # library code mended by the import hook
    if diagnostics is None:
        lines = linecache.getlines(filename)
        if not lines:
            return None
        diagnostics = mender._mend_file(filename, "".join(lines), all_rewrites()).diagnostics
    best = None
    for d in diagnostics:
        if d.line <= line <= max(d.end_line, d.line) and d.code.startswith("GM1"):
            if best is None or (d.end_line - d.line) < (best.end_line - best.line):
                best = d
    return best


def explain(obj: Any, *args: Any, **kwargs: Any) -> ExplainReport:
    """Runs ``obj(*args, **kwargs)`` under ``torch._dynamo.explain`` (after
    ``torch._dynamo.reset()``) and reports its graphs and breaks, each break with GraphMend's
    tag code when ``mend_source`` reports a break site on that line. ``obj`` is measured as
    given: pass ``graphmend.mend(obj)`` to measure the mended program. A frame Dynamo gave
    up on after a break (a break in a loop: it runs the whole frame eagerly) counts that
    break, which Dynamo's explain leaves out, as ``graphmend explain`` counts it; so does a
    call whose graphs hold no operation (``op_count``: calls of functions, methods and
    modules) count every break Dynamo logged."""
    logged: List[Any] = []
    with logged_breaks(logged):
        output, _ = _run_explain(obj, args, kwargs)
    report = _explain_report(output)[0]
    unlisted, _ = unlisted_breaks(logged, report.breaks, report.op_count > 0)
    report.breaks.extend(info for info, _ in unlisted)
    report.graph_break_count = max(report.graph_break_count, len(report.breaks))
    return report


def _run_explain(
    obj: Any, args: tuple, kwargs: dict, *, keep_result: bool = False
) -> Tuple[Any, Any]:
    """Dynamo's explain output for one call, with the compile boundary's flush and
    translate, and (``keep_result``) the call's result, which explain itself drops: a probe
    around ``obj`` keeps it (Dynamo inlines the probe, which adds no graph or break)."""
    import torch._dynamo

    results: List[Any] = []
    target = obj
    if keep_result:

        def target(*a: Any, **k: Any) -> Any:
            result = obj(*a, **k)
            results.append(result)
            return result

    torch._dynamo.reset()
    output = boundary.boundary(torch._dynamo.explain(target), entry=target)(*args, **kwargs)
    return output, (results[0] if results else None)


def _explain_report(output: Any) -> Tuple[ExplainReport, List[str]]:
    """The report of Dynamo's explain output, and each break's whole reason text."""
    breaks = []
    reasons = []
    for reason in output.break_reasons:
        text = str(getattr(reason, "reason", reason))
        reasons.append(text)
        breaks.append(_break_info(reason, text))
    report = ExplainReport(
        graph_count=int(output.graph_count),
        graph_break_count=int(output.graph_break_count),
        breaks=breaks,
        op_count=sum(_calls(graph) for graph in getattr(output, "graphs", None) or ()),
    )
    return report, reasons


def _calls(graph: Any) -> int:
    """The operations of a graph: its calls of functions, methods and modules (Dynamo's
    explain counts the first only)."""
    return sum("call" in node.op for node in graph.graph.nodes)


# Dynamo's words for a frame it gave up on after a break (a break in a loop): it runs the
# whole frame eagerly and compiles no graph of it.
_SKIP_SIGNS = ("graph break in loop", "Skipping the function", "frame skipped")


class _Frame:
    """A stand-in with the ``user_stack`` explain's break reasons carry."""

    def __init__(self, stack: Any) -> None:
        self.user_stack = list(stack or ())


def _chained_text(exc: BaseException, reason: str) -> str:
    """The reason and the texts of the exceptions it was raised while handling (a break in
    a loop is raised while handling the break inside the loop)."""
    parts, seen = [reason], set()
    link: Optional[BaseException] = exc
    while link is not None and id(link) not in seen:
        seen.add(id(link))
        parts.append(f"{getattr(link, 'gb_type', '')}\n{link}")
        link = link.__cause__ or link.__context__
    return "\n".join(parts)


@contextlib.contextmanager
def logged_breaks(sink: List[Tuple[Any, str, BaseException]]) -> Iterator[None]:
    """Collects into ``sink`` every break Dynamo logs while inside, frames it then skipped
    included (no graph, so no backend call, says where those broke): (its user stack,
    reason, exception). ``unlisted_breaks`` reads them."""
    try:
        from torch._dynamo import symbolic_convert
    except ImportError:
        yield
        return
    # The runtime wraps log_graph_break when imported (captured reads): first, so that the
    # wrapper put back on leaving is its.
    importlib.import_module("graphmend.runtime")
    translator: Any = getattr(symbolic_convert, "InstructionTranslatorBase", None)
    original = getattr(translator, "log_graph_break", None)
    if translator is None or original is None:
        yield
        return

    def log_graph_break(self: Any, code_options: Any, reason: str, exc: Any) -> None:
        # First: a captured read asks for scalar capture there (runtime.capture.on_break),
        # which stops the trace, and the break it would have been is not one.
        result = original(self, code_options, reason, exc)
        try:
            stack = getattr(exc, "real_stack", None)
            if stack is None:
                import torch._guards

                stack = torch._guards.TracingContext.extract_stack()
            sink.append((stack, reason, exc))
        except Exception:  # noqa: BLE001 (evidence is best effort; the call goes on)
            pass
        return result

    translator.log_graph_break = log_graph_break
    try:
        yield
    finally:
        translator.log_graph_break = original


def _break_info(frame: Any, text: str, exc: Optional[BaseException] = None) -> BreakInfo:
    filename, line = _user_frame(frame)
    tag = _tag_for(filename, line)
    return BreakInfo(
        filename=filename,
        line=line,
        reason=_first_line_of(text),
        code=tag.code if tag else "",
        fixed=tag.fixed if tag else None,
        message=tag.message if tag else "",
        runtime_frame=_runtime_frame(frame),
        framework=_framework_frame(getattr(frame, "user_stack", None), *_chained_stacks(exc)),
    )


def _chained_stacks(exc: Optional[BaseException]) -> List[Any]:
    """The stacks of the exceptions a break was raised while handling (a break in a loop
    is raised while handling the break inside the loop, whose stack says where that was)."""
    stacks, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        stacks.append(getattr(exc, "real_stack", None))
        exc = exc.__cause__ or exc.__context__
    return stacks


def logged_break_infos(logged: List[Tuple[Any, str, BaseException]]) -> List[Tuple[BreakInfo, str]]:
    """Every logged break, with its whole text (Dynamo's break type first)."""
    infos = []
    for stack, reason, exc in logged:
        text = _chained_text(exc, reason)
        gb_type = getattr(exc, "gb_type", "")
        if isinstance(gb_type, str) and gb_type:  # Dynamo's break type leads, as explain's
            text = f"{gb_type}\n{text}"
        infos.append((_break_info(_Frame(stack), text, exc), text))
    return infos


def unlisted_breaks(
    logged: List[Tuple[Any, str, BaseException]], listed: List[BreakInfo], compiled: bool
) -> Tuple[List[Tuple[BreakInfo, str]], int]:
    """The logged breaks no graph's break names, each with its whole text: those of frames
    Dynamo skipped (a break in a loop: it ran the frame eagerly), and every one when nothing
    was ``compiled`` (no graph holding an operation: an empty graph, as a resumed frame that
    only returns compiles, names no break either); and how many frames were skipped."""
    seen = {(info.filename, info.line) for info in listed}
    unlisted, skipped_frames = [], 0
    for info, text in logged_break_infos(logged):
        skipped = any(sign in text for sign in _SKIP_SIGNS)
        skipped_frames += skipped
        if (info.filename, info.line) in seen or not (skipped or not compiled):
            continue
        seen.add((info.filename, info.line))
        unlisted.append((info, text))
    return unlisted, skipped_frames
