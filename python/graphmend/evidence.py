"""Dynamo's evidence of a real call: where it broke and why, recorded while the call runs
(no second trace). ``graphmend.compile`` without example inputs records it on the first
call and, where Dynamo broke on a branch the text gave no sign of (an operand it saw as a
tensor), mends again with those lines as ``observed_lines`` for the later calls
(docs/MENDER.md, "Runtime evidence")."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from . import boundary, cache, explainer, mender
from .options import all_on as all_rewrites
from .reports import (
    JUMP_SIGNS,
    SCALAR_SIGNS,
    SHAPE_SIGNS,
    BreakInfo,
    CompileReport,
    Diagnostic,
    ExplainReport,
    MendReport,
)

__all__ = ["Evidence"]


@dataclasses.dataclass
class Evidence:
    """What Dynamo did on one call: ``graph_count`` graphs compiled, one ``BreakInfo`` per
    break (``reasons``: each one's whole text, with the breaks before it that made Dynamo
    give up on a frame), and ``frames_skipped``, the frames it ran eagerly after a break in
    a loop (each of their breaks is in ``breaks``). ``uncounted``: the breaks Dynamo logged
    that no compiled graph names (a break before any operation leaves no graph to name it),
    with their texts: not counted, but evidence of what Dynamo saw at their lines."""

    graph_count: int = 0
    op_count: int = 0
    breaks: List[BreakInfo] = dataclasses.field(default_factory=list)
    reasons: List[str] = dataclasses.field(default_factory=list)
    frames_skipped: int = 0
    uncounted: List[Tuple[BreakInfo, str]] = dataclasses.field(default_factory=list)

    def report(self) -> ExplainReport:
        """As ``graphmend.explain`` reports a call (a skipped frame's breaks included)."""
        return ExplainReport(
            graph_count=self.graph_count,
            graph_break_count=max(len(self.breaks), self.graph_count - 1),
            breaks=list(self.breaks),
            op_count=self.op_count,
        )

    def jump_lines(self) -> Dict[str, Tuple[int, ...]]:
        """File -> the lines Dynamo broke on a branch on a tensor there, on an operator of
        data-dependent output shape or on a scalar read (the mender's ``observed_lines``: an
        operand it saw as a tensor, an index it saw as a mask, a read of a tensor)."""
        lines: Dict[str, set] = {}
        signs = JUMP_SIGNS + SHAPE_SIGNS + SCALAR_SIGNS
        for info, text in list(zip(self.breaks, self.reasons)) + self.uncounted:
            if info.filename and info.line and any(sign in text for sign in signs):
                lines.setdefault(info.filename, set()).add(info.line)
        return {f: tuple(sorted(found)) for f, found in sorted(lines.items())}


class _Recorder:
    """The caller's backend with Dynamo's break reasons taken on the way, while ``armed``
    (the ``compile_subgraph_reason`` of each graph: what ``torch._dynamo.explain``'s own
    backend reads). Disarmed, it only passes each graph on."""

    inner: Callable[..., Any]
    armed: bool
    graphs: int
    ops: int
    reasons: List[Any]

    def __init__(self, inner: Callable[..., Any]) -> None:
        # Set through __dict__: __getattr__ answers the names it lacks from ``inner``.
        self.__dict__.update(inner=inner, armed=False, graphs=0, ops=0, reasons=[])

    def __call__(self, gm: Any, example_inputs: Any, **kwargs: Any) -> Any:
        if self.armed:
            self.graphs += 1
            self.ops += explainer._calls(gm)
            reason = getattr(gm, "compile_subgraph_reason", None)
            if reason is not None and getattr(reason, "graph_break", False):
                self.reasons.append(reason)
        return self.inner(gm, example_inputs, **kwargs)

    def __getattr__(self, name: str) -> Any:  # reset, get_compiler_config, compiler_name
        return getattr(self.__dict__["inner"], name)


def _gathered(recorder: _Recorder, logged: List[Tuple[Any, str, BaseException]]) -> Evidence:
    """The evidence of one call: the breaks of the graphs compiled, then those logged at a
    line no graph's break names (the frames Dynamo skipped)."""
    found = Evidence(graph_count=recorder.graphs, op_count=recorder.ops)
    for reason in recorder.reasons:
        text = str(getattr(reason, "reason", reason))
        found.breaks.append(explainer._break_info(reason, text))
        found.reasons.append(text)
    unlisted, found.frames_skipped = explainer.unlisted_breaks(
        logged, found.breaks, found.op_count > 0
    )
    for info, text in unlisted:
        found.breaks.append(info)
        found.reasons.append(text)
    seen = {(info.filename, info.line) for info in found.breaks}
    for info, text in explainer.logged_break_infos(logged):
        if (info.filename, info.line) not in seen:
            seen.add((info.filename, info.line))
            found.uncounted.append((info, text))
    return found


@contextlib.contextmanager
def recording(recorder: _Recorder) -> Iterator[List[Evidence]]:
    """Records the evidence of the calls inside (one ``Evidence`` in the list it yields, on
    leaving, whether the call returned or raised)."""
    logged: List[Tuple[Any, str, BaseException]] = []
    out: List[Evidence] = []
    recorder.graphs, recorder.reasons, recorder.armed = 0, [], True
    try:
        with explainer.logged_breaks(logged):
            yield out
    finally:
        recorder.armed = False
        out.append(_gathered(recorder, logged))


def record(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Tuple[Any, Evidence]:
    """``call(*args, **kwargs)`` compiled with a recording eager backend (after
    ``torch._dynamo.reset()``, as ``torch._dynamo.explain`` runs it), behind the compile
    boundary: the result and what Dynamo did."""
    import torch
    import torch._dynamo

    recorder = _Recorder(lambda gm, example_inputs: gm.forward)
    torch._dynamo.reset()
    compiled = boundary.boundary(torch.compile(call, backend=recorder), entry=call)
    try:
        with recording(recorder) as out:
            result = compiled(*args, **kwargs)
    finally:
        torch._dynamo.reset()
    return result, out[0]


def _user_backend(kwargs: Dict[str, Any]) -> Tuple[Optional[Callable[..., Any]], Dict[str, Any]]:
    """The backend ``torch.compile(**kwargs)`` would build (Inductor with its mode and
    options, or the named backend) and the arguments left for ``torch.compile``; (None, _)
    when an option ``torch.compile`` takes itself out of ``options`` is set."""
    import torch

    rest = dict(kwargs)
    backend = rest.pop("backend", "inductor")
    mode, options = rest.pop("mode", None), rest.pop("options", None)
    if isinstance(options, dict) and ({"guard_filter_fn", "use_aoti"} & options.keys()):
        return None, kwargs
    if mode is not None and options is not None:
        return None, kwargs  # torch.compile raises on it: let it
    if backend == "inductor":
        return torch._TorchCompileInductorWrapper(
            mode or "default", options, rest.get("dynamic")
        ), rest
    return torch._TorchCompileWrapper(backend, mode, options, rest.get("dynamic")), rest


def _covered(d: Diagnostic, filename: str, line: int) -> bool:
    return d.filename == filename and d.line <= line <= max(d.end_line, d.line)


def _new_lines(
    lines: Dict[str, Tuple[int, ...]], fixed: List[Diagnostic]
) -> Dict[str, Tuple[int, ...]]:
    """The lines of ``lines`` no fixed site covers."""
    out = {}
    for filename, found in lines.items():
        left = tuple(n for n in found if not any(_covered(d, filename, n) for d in fixed))
        if left:
            out[filename] = left
    return out


def _site_key(d: Diagnostic) -> Tuple[str, int, str]:
    return (d.filename, d.line, d.code)


def mend_with(obj: Any, observed: Dict[str, Tuple[int, ...]]) -> Tuple[Any, MendReport]:
    """``obj`` mended as ``graphmend.compile`` mends it, with Dynamo's jump lines as
    ``observed_lines`` (a branch there is a branch on a tensor)."""
    options: Dict[str, Any] = dict(all_rewrites())
    if observed:
        options["observed_lines"] = observed
    return mender._mend_for_compile(obj, options)


def tag_from(breaks: List[BreakInfo], mend_rep: MendReport) -> List[BreakInfo]:
    """``breaks`` with the tag of the site of ``mend_rep`` that covers each untagged one (a
    branch tagged from Dynamo's evidence has no site in the text's own diagnostics)."""
    out = []
    for info in breaks:
        if not info.code:
            sites = [d for d in mend_rep.diagnostics if _covered(d, info.filename, info.line)]
            if sites:
                d = min(sites, key=lambda d: d.end_line - d.line)
                info = dataclasses.replace(info, code=d.code, fixed=d.fixed, message=d.message)
        out.append(info)
    return out


def from_runtime(static: MendReport, mended: MendReport) -> List[Diagnostic]:
    """The sites ``mended`` fixes that ``static`` (the text alone) did not."""
    known = {_site_key(d) for d in static.fixed}
    return [d for d in mended.fixed if _site_key(d) not in known]


def _identity(obj: Any) -> Optional[Tuple[str, str]]:
    """(source file, qualified name) of what ``graphmend.compile`` was given: a function, a
    method's function, or a module instance's class; None when it has no source file."""
    import inspect
    import types

    target = obj.__func__ if isinstance(obj, types.MethodType) else obj
    if not isinstance(target, (types.FunctionType, type)):
        target = type(target)
    try:
        path = inspect.getsourcefile(target)
    except (TypeError, OSError):
        return None
    if not path:
        return None
    return path, f"{target.__module__}.{target.__qualname__}"


def _file_digest(path: str) -> Optional[str]:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def _memory(obj: Any) -> Tuple[Optional[cache.Store], str]:
    """The cache folder's store and the key of ``obj``'s remembered evidence ("" if none)."""
    folder, identity = mender._cache_dir(), _identity(obj)
    if not folder or identity is None:
        return None, ""
    store = cache.Store(folder)
    path, name = identity
    return store, store.key(path, None, {}, kind="evidence", text_digest=name)


def remembered(obj: Any) -> Dict[str, Tuple[int, ...]]:
    """The jump lines an earlier process's first call of ``obj`` found, when every file they
    name still holds the text it held then ({} otherwise: the evidence is stale)."""
    store, key = _memory(obj)
    stored = store.load(key) if store is not None else None
    if not stored or not isinstance(stored[0], tuple):
        return {}
    lines: Dict[str, Tuple[int, ...]] = {}
    for filename, digest, found in stored[0]:
        if _file_digest(filename) != digest:
            return {}
        lines[filename] = tuple(found)
    return lines


def remember(obj: Any, lines: Dict[str, Tuple[int, ...]]) -> None:
    """Keeps ``lines`` (the jump lines that mended ``obj`` further) in the cache folder, each
    file with the digest of its text, for the first call of a later process."""
    store, key = _memory(obj)
    if store is None:
        return
    entries = []
    for filename, found in sorted(lines.items()):
        digest = _file_digest(filename)
        if digest is None:
            return
        entries.append((filename, digest, tuple(found)))
    store.store(key, (tuple(entries),))


def _merged(*maps: Dict[str, Tuple[int, ...]]) -> Dict[str, Tuple[int, ...]]:
    out: Dict[str, set] = {}
    for lines in maps:
        for filename, found in lines.items():
            out.setdefault(filename, set()).update(found)
    return {f: tuple(sorted(found)) for f, found in sorted(out.items())}


class FirstCall:
    """The object ``graphmend.compile`` returns calls through this: the first call runs the
    program mended from its text (and from the evidence an earlier process remembered),
    compiled with the caller's backend wrapped by a ``_Recorder`` (the program runs once, so
    its prints, records, RNG draws and buffer updates happen once); its evidence then
    decides what the later calls run: the same compiled object when Dynamo broke on no
    branch no site covers (no recompile), else ``obj`` mended again with those lines and
    compiled afresh (``swap``), the lines remembered for the next process."""

    def __init__(
        self,
        obj: Any,
        compiled: Any,
        recorder: _Recorder,
        report: CompileReport,
        swap: Callable[[Any], Any],
        static: MendReport,
    ) -> None:
        self.obj, self.recorder, self.report, self.swap = obj, recorder, report, swap
        self.static = static
        self.current = compiled
        self.pending = True
        self.lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self.pending:
            return self.current(*args, **kwargs)
        with self.lock:
            first, self.pending = self.pending, False
        if not first:
            return self.current(*args, **kwargs)
        call = self.current
        try:
            with recording(self.recorder) as out:
                return call(*args, **kwargs)
        finally:
            self._decide(out[0] if out else Evidence())

    def _decide(self, found: Evidence) -> None:
        report = self.report
        report.evidence = "first call"
        report.breaks_before = found.breaks
        report.breaks_after = found.breaks
        report.first_call_graphs = found.graph_count
        report.frames_skipped = found.frames_skipped
        report.model_calls = 1
        jumps = _new_lines(found.jump_lines(), report.mend.fixed)
        if not jumps:
            return
        report.observed_lines = _merged(report.observed_lines, jumps)
        try:
            observed = _merged(report.remembered_lines, found.jump_lines())
            mended, mend_rep = mend_with(self.obj, observed)
            if not from_runtime(report.mend, mend_rep):
                report.dropped_rounds.append(
                    "Dynamo broke on a branch at "
                    + ", ".join(f"{f}:{n}" for f, ns in jumps.items() for n in ns)
                    + ": no rewrite fixes it"
                )
                return
            self.current = self.swap(mended)
        except Exception as exc:  # noqa: BLE001 (the later calls keep the static mend)
            report.dropped_rounds.append(
                f"mending with the evidence failed: {type(exc).__name__}: {exc}"
            )
            return
        report.mend, report.from_runtime = mend_rep, from_runtime(self.static, mend_rep)
        report.rounds = 2
        report.recompiled = True
        remember(self.obj, observed)


def _with_remembered(obj: Any, target: Any, report: CompileReport) -> Any:
    """``target``, or ``obj`` mended with the evidence an earlier process's first call
    remembered when that mends more (``report`` says so)."""
    lines = remembered(obj)
    if not lines:
        return target
    try:
        mended, mend_rep = mend_with(obj, lines)
    except Exception:  # noqa: BLE001 (the static mend stays)
        return target
    added = from_runtime(report.mend, mend_rep)
    if not added:
        return target
    report.mend, report.from_runtime = mend_rep, added
    report.observed_lines = report.remembered_lines = lines
    return mended


def compile_with_evidence(
    obj: Any, target: Any, mend_rep: MendReport, torch_compile_kwargs: Dict[str, Any]
) -> Any:
    """``graphmend.compile`` without example inputs: ``target`` (``obj`` mended from its
    text) compiled with the caller's backend behind a ``_Recorder``; the first call records
    the evidence (``FirstCall``). None when the arguments leave no backend to wrap."""
    import types

    import torch

    kwargs = boundary.with_eager_precision(torch_compile_kwargs)
    inner, rest = _user_backend(kwargs)
    if inner is None:
        return None
    recorder = _Recorder(inner)
    report = CompileReport([], [], mend_rep)
    report.from_text = list(mend_rep.fixed)
    report.evidence, report.rounds = "pending", 1
    target = _with_remembered(obj, target, report)
    compiled = torch.compile(target, backend=recorder, **rest)
    function = obj.__func__ if isinstance(obj, types.MethodType) else obj

    if isinstance(compiled, torch.nn.Module):
        entry = compiled._orig_mod

        def swap_module(mended: Any) -> Any:
            _carry_state(compiled._orig_mod, mended)
            fresh = torch.compile(mended, **kwargs)
            # The compiled module's children (train/eval, state_dict) are the new twin's.
            compiled._orig_mod = mended
            return fresh.forward

        first = FirstCall(obj, compiled.forward, recorder, report, swap_module, mend_rep)
        compiled.forward = boundary.boundary(first, None, entry)
        mender._attach_report(compiled, mend_rep)
        for name, value in (
            ("__graphmend_compile_report__", report),
            ("__graphmend_first_call__", first),
        ):
            object.__setattr__(compiled, name, value)
        return compiled

    def swap_function(mended: Any) -> Any:
        return torch.compile(mended, **kwargs)

    first = FirstCall(obj, compiled, recorder, report, swap_function, mend_rep)
    bounded = boundary.boundary(first, None, getattr(compiled, "_torchdynamo_orig_callable", None))
    import functools

    try:
        functools.update_wrapper(bounded, function)
    except (AttributeError, TypeError):
        pass
    attributes: Tuple[Tuple[str, Any], ...] = (
        ("__graphmend_compiled__", compiled),
        ("__graphmend_report__", mend_rep),
        ("__graphmend_compile_report__", report),
        ("__graphmend_first_call__", first),
    )
    for name, value in attributes:
        setattr(bounded, name, value)
    return bounded


# The attribute values a first call may have changed on a module (`self.steps += 1`) that
# the module mended again (a copy of the original) must start from.
_PLAIN = (bool, int, float, complex, str, bytes, type(None), tuple)


def _carry_state(old: Any, new: Any) -> None:
    """The plain attributes of ``old``'s modules onto ``new``'s (the same tree: mended
    copies of one module share parameters, buffers and any module left as it was)."""
    olds = dict(old.named_modules(remove_duplicate=False))
    for name, module in new.named_modules(remove_duplicate=False):
        before = olds.get(name)
        if before is None or before is module:
            continue
        for key, value in vars(before).items():
            if type(value) in _PLAIN:
                vars(module)[key] = value
