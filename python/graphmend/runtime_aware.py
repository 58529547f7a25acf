"""Runtime-aware ``graphmend.compile``: mend where Dynamo broke on example inputs, and
enable Dynamo's capture options where no rewrite can help (docs/MENDER.md)."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import itertools
import logging
import os
import types
import warnings
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import boundary, explainer, mender
from .options import all_on as all_rewrites
from .reports import JUMP_SIGNS, BreakInfo, CompileReport, ExplainReport, MendReport

__all__ = ["CaptureOptionsEnabled", "compile_report"]


class CaptureOptionsEnabled(UserWarning):
    """``graphmend.compile`` enabled Dynamo options for one compile (the message names
    them and the break sites that called for them; ``compile_report`` has the details)."""


# Signs, in Dynamo's whole reason text, of a break a capture option removes (Dynamo's own
# hint names the option; the rest are its break types for .item()/.tolist() and nonzero).
_CAPTURE_SIGNS: Dict[str, Tuple[str, ...]] = {
    "capture_scalar_outputs": (
        "capture_scalar_outputs",
        "Tensor.item()",
        "tolist",
        "Data dependent operator",
    ),
    "capture_dynamic_output_shape_ops": (
        "capture_dynamic_output_shape_ops",
        "Dynamic shape operator",
        "nonzero",
    ),
}

# Dynamo's option that resumes tracing inside the function a break happened in, instead of
# splitting every caller at its call: called for by a break below the compiled frame.
_NESTED_OPTION = "nested_graph_breaks"

_NO_FEWER = ": no fewer"

# Mend rounds: each mends with the break lines of every run so far and runs the result.
_MAX_ROUNDS = 3

_PROFILE_SEED = 0


def compile_report(compiled: Any) -> Optional[CompileReport]:
    """The ``CompileReport`` of an object runtime-aware ``graphmend.compile`` returned (None
    for anything else)."""
    report = getattr(compiled, "__graphmend_compile_report__", None)
    return report if isinstance(report, CompileReport) else None


def _attach_compile_report(compiled: Any, report: CompileReport) -> None:
    object.__setattr__(compiled, "__graphmend_compile_report__", report)


@dataclasses.dataclass
class _Run:
    report: ExplainReport
    reasons: List[str]  # each break's whole reason text
    depths: List[int]  # each break's number of user frames (more than 1: a nested frame)
    output: Any = None
    compiled: Any = None  # the torch.compile result a capture trial ran
    # The breaks of the frames Dynamo gave up on (a break in a loop), which name no site to
    # mend: reported with the others, never acted on.
    skipped: List[BreakInfo] = dataclasses.field(default_factory=list)

    @property
    def breaks(self) -> List[BreakInfo]:
        return self.report.breaks

    @property
    def counted(self) -> List[BreakInfo]:
        """Every break, as graphmend.explain counts them."""
        return self.report.breaks + self.skipped


# Values whose __dict__ is code or a namespace, not state a call changes.
_CODE_AND_TYPES = (type, types.ModuleType, types.FunctionType, types.MethodType)


class _Snapshot:
    """What calls of a module tree may change, kept to be put back in place: the contents
    of each module's ``__dict__`` (its plain attributes, and through ``_modules``,
    ``_buffers`` and ``_parameters`` the submodules, buffers and parameters it holds:
    `self.cache = KVCache(...)` is undone) and of every list, dict, set, deque and object
    attribute dict reachable from them, through bound methods too (`self.lr_lambda =
    scheduler.schedule`): the same objects refilled, so a reference held elsewhere sees the
    old contents again (`self.metrics["loss"].append(x)` and `self.running.mean += m` are
    undone); and the values of the tensors those hold, parameters aside (buffers, a tensor
    counter)."""

    _DEPTH = 6  # containers in containers, below a module's __dict__
    _ITEMS = 100_000  # a bound on what one snapshot walks

    def __init__(self) -> None:
        self.contents: List[Tuple[Any, Any]] = []
        self.tensors: List[Tuple[Any, Any]] = []
        self.seen: set = set()
        self.items = 0

    def take(self, owner: Any) -> None:
        """Adds ``owner``'s module tree (the modules not taken yet)."""
        for module in owner.modules():
            self._container(vars(module), 0)

    def _container(self, container: Any, depth: int) -> None:
        if id(container) in self.seen or self.items > self._ITEMS:
            return
        self.seen.add(id(container))
        values = list(container.items()) if isinstance(container, dict) else list(container)
        self.items += len(values)
        self.contents.append((container, values))
        for value in values:
            self._value(value[1] if isinstance(container, dict) else value, depth)

    def _value(self, value: Any, depth: int) -> None:
        import torch

        if isinstance(value, torch.Tensor):
            if not isinstance(value, torch.nn.Parameter) and id(value) not in self.seen:
                self.seen.add(id(value))
                self.tensors.append((value, value.detach().clone()))
        elif depth >= self._DEPTH:
            return
        elif isinstance(value, types.MethodType):  # `self.lr_lambda = scheduler.schedule`
            self._value(value.__self__, depth + 1)
        elif isinstance(value, (list, dict, set, collections.deque)):
            self._container(value, depth + 1)
        elif isinstance(getattr(value, "__dict__", None), dict) and not isinstance(
            value, _CODE_AND_TYPES
        ):
            self._container(vars(value), depth + 1)  # an object's attributes (`self.running.mean`)

    def restore(self) -> None:
        import torch

        for container, values in self.contents:
            if isinstance(container, list):
                container[:] = values
            elif isinstance(container, dict):
                container.clear()
                container.update(values)
            elif isinstance(container, set):
                container.clear()
                container.update(values)
            else:  # a deque
                container.clear()
                container.extend(values)
        with torch.no_grad():
            for tensor, saved in self.tensors:
                # An inference tensor cannot be written outside inference mode.
                if tensor.shape == saved.shape and not tensor.is_inference():
                    tensor.copy_(saved)


class _Profiler:
    """Runs the example call as if each run were the first, and leaves the model as it found
    it: before each run the RNG is seeded, and before and after each run what the run may
    have changed of the module tree (``_Snapshot``: attributes, submodules, buffers,
    containers and objects it holds, tensor values) is put back; the caller's RNG state is
    restored at the end. What the model changes outside what it holds (a global, a class
    attribute) is not put back."""

    def __init__(self, obj: Any, args: tuple, kwargs: dict):
        self.obj, self.args, self.kwargs = obj, args, kwargs
        self.snapshot = _Snapshot()
        self.owners: set = set()
        self.rng = contextlib.ExitStack()
        self.calls = 0  # how many times the model was called

    def __enter__(self) -> "_Profiler":
        import torch

        self.rng.enter_context(torch.random.fork_rng())
        self._remember(self.obj)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._fresh()
        self.rng.close()

    def _remember(self, target: Any) -> None:
        """Keeps the state of ``target``'s module tree (once per tree)."""
        owner = target.__self__ if isinstance(target, types.MethodType) else target
        if id(owner) in self.owners or not mender._looks_like_torch_module(owner):
            return
        self.owners.add(id(owner))
        self.snapshot.take(owner)

    def _fresh(self) -> None:
        import torch

        self.snapshot.restore()
        torch.manual_seed(_PROFILE_SEED)

    @contextlib.contextmanager
    def _fresh_call(self, target: Any) -> Iterator[None]:
        """One call of the model through ``target``: the state is put back before it and
        after it, whether it returns or raises."""
        self._remember(target)
        self._fresh()
        self.calls += 1
        try:
            yield
        finally:
            self._fresh()

    def explain(self, target: Any, *, keep_result: bool = False) -> _Run:
        logged: List[Any] = []
        with self._fresh_call(target), explainer.logged_breaks(logged):
            output, result = explainer._run_explain(
                target, self.args, self.kwargs, keep_result=keep_result
            )
        report, reasons = explainer._explain_report(output)
        depths = [len(getattr(r, "user_stack", None) or ()) for r in output.break_reasons]
        unlisted, _ = explainer.unlisted_breaks(logged, report.breaks, report.op_count > 0)
        return _Run(report, reasons, depths, result, skipped=[info for info, _ in unlisted])

    def eager(self) -> Any:
        return self.call(self.obj)

    def call(self, target: Any, config: Optional[Dict[str, bool]] = None) -> Any:
        with self._fresh_call(target):
            return boundary.boundary(target, config)(*self.args, **self.kwargs)


def _break_lines(breaks: List[BreakInfo]) -> Dict[str, Tuple[int, ...]]:
    """File -> the lines Dynamo broke on there (the mender's per-file line filter)."""
    lines: Dict[str, set] = {}
    for info in breaks:
        if info.filename and info.line:
            lines.setdefault(info.filename, set()).add(info.line)
    return {filename: tuple(sorted(found)) for filename, found in lines.items()}


def _skipped_files(run: _Run) -> Dict[str, Tuple[int, ...]]:
    """File -> all its lines, for each file holding a frame Dynamo gave up on: such a break
    names no site, so every site of the file is mended, as the source alone would."""
    import linecache

    return {
        info.filename: tuple(range(1, len(linecache.getlines(info.filename)) + 1))
        for info in run.skipped
        if info.filename and linecache.getlines(info.filename)
    }


def _jump_breaks(run: _Run) -> List[BreakInfo]:
    """The breaks of ``run`` on a branch on a tensor (a data-dependent jump)."""
    return [
        info for info, text in zip(run.breaks, run.reasons) if any(s in text for s in JUMP_SIGNS)
    ]


def _broken(run: _Run) -> int:
    """The breaks of ``run``; a run of which Dynamo compiled no graph (it gave up on the frame,
    after a break in a loop) counts as broken once."""
    return max(len(run.counted), 1 if run.report.graph_count == 0 else 0)


def _merge_lines(into: Dict[str, set], lines: Dict[str, Tuple[int, ...]]) -> bool:
    """Adds ``lines`` to ``into``; whether any was new."""
    new = False
    for filename, found in lines.items():
        known = into.setdefault(filename, set())
        new = new or not known.issuperset(found)
        known.update(found)
    return new


class _MendRounds:
    """Mends where Dynamo broke, runs the result under ``explain`` and, while that run breaks
    on a line no round had, mends again (the original, with the lines of every run so far):
    a branch whose condition only becomes a tensor once an earlier branch is predicated is
    mended in the next round. At most ``_MAX_ROUNDS`` rounds. A round's program is kept only
    when it mends more sites than the last one kept, its run raises nothing and it has no
    more breaks; otherwise the last one kept stays, and ``dropped`` says why."""

    def __init__(self, profiler: _Profiler, obj: Any, before: _Run):
        self.profiler, self.obj = profiler, obj
        self.mended, self.report, self.last = obj, MendReport(), before
        self.lines: Dict[str, set] = {}
        self.jumps: Dict[str, set] = {}
        self.rounds = 0
        self.dropped: List[str] = []

    def run(self) -> "_MendRounds":
        while self.rounds < _MAX_ROUNDS:
            new_lines = _merge_lines(self.lines, _break_lines(self.last.breaks))
            new_lines = _merge_lines(self.lines, _skipped_files(self.last)) or new_lines
            _merge_lines(self.jumps, _break_lines(_jump_breaks(self.last)))
            if self.rounds > 0 and not new_lines:
                break
            if not self.round():
                break
        return self

    def round(self) -> bool:
        """One round; whether its program was kept."""
        self.rounds += 1
        options = {
            **all_rewrites(),
            "only_lines": {f: tuple(sorted(lines)) for f, lines in self.lines.items()},
            "observed_lines": {f: tuple(sorted(lines)) for f, lines in self.jumps.items()},
        }
        mended, report = mender._mend_for_compile(self.obj, options)
        if self.rounds == 1 and not report.fixed:
            self.mended, self.report = mended, report
            return False
        if len(report.fixed) <= len(self.report.fixed):
            return False
        try:
            run = self.profiler.explain(mended)
        except Exception as exc:  # torch.cond over a branch Dynamo cannot trace, say
            return self.drop(f"Dynamo raised {_exception_line(exc)}")
        if _broken(run) > _broken(self.last):
            return self.drop(f"{_broken(run)} break(s) after it, {_broken(self.last)} before")
        self.mended, self.report, self.last = mended, report, run
        return True

    def drop(self, why: str) -> bool:
        self.dropped.append(f"round {self.rounds}: {why}")
        if self.rounds == 1:
            self.mended = self.obj
        return False


def _runtime_aware(
    obj: Any, args: tuple, kwargs: dict, capture: Any, torch_compile_kwargs: Dict[str, Any]
) -> Tuple[Any, CompileReport, Any]:
    """The mended object, the report and, when capture options were enabled, the
    ``torch.compile`` of the mended object that was run under them (None otherwise)."""
    with _Profiler(obj, args, kwargs) as profiler:
        before = profiler.explain(obj)
        rounds = _MendRounds(profiler, obj, before).run()
        report = CompileReport(before.counted, rounds.last.counted, rounds.report)
        report.rounds, report.dropped_rounds = rounds.rounds, rounds.dropped
        trial = _choose_capture(
            profiler, rounds.mended, rounds.last, capture, report, torch_compile_kwargs
        )
        report.model_calls = profiler.calls
    return rounds.mended, report, trial


def _capture_calls(run: _Run) -> Dict[str, List[BreakInfo]]:
    """Dynamo option -> the breaks of ``run`` it could remove (options already on, or that
    this torch lacks, are left out: they cannot help)."""
    import torch._dynamo

    def available(option: str) -> bool:
        return getattr(torch._dynamo.config, option, True) is False

    calls: Dict[str, List[BreakInfo]] = {}
    for info, text, depth in zip(run.breaks, run.reasons, run.depths):
        for option, signs in _CAPTURE_SIGNS.items():
            if available(option) and any(s in text for s in signs):
                calls.setdefault(option, []).append(info)
        if depth > 1 and available(_NESTED_OPTION):
            calls.setdefault(_NESTED_OPTION, []).append(info)
    return calls


def _choose_capture(
    profiler: _Profiler,
    mended: Any,
    after: _Run,
    capture: Any,
    report: CompileReport,
    torch_compile_kwargs: Dict[str, Any],
) -> Any:
    """Tries the Dynamo options the remaining breaks call for (see ``_OptionSearch``) and
    records them in ``report`` as enabled or rejected. Returns the ``torch.compile`` of
    ``mended`` that ran under the enabled options (None when none were enabled)."""
    calls = _capture_calls(after)
    if not calls:
        return None
    if capture is False:
        report.rejected = {option: "not tried: capture=False" for option in calls}
        return None
    search = _OptionSearch(profiler, mended, after, torch_compile_kwargs)
    best = search.fewest_options(search.largest_kept(tuple(calls)))
    if best is None or best[0] != search.last_tried:
        # Dynamo caches compiled code on the functions themselves, whatever the options it
        # was compiled under: a later trial's (perhaps rejected) graphs must not serve calls.
        import torch._dynamo

        torch._dynamo.reset()
    if best is None:
        report.rejected = search.rejected
        return None
    subset, trial = best
    report.capture_options = dict.fromkeys(subset, True)
    report.capture_reasons = {option: calls[option] for option in subset}
    report.rejected = {o: why for o, why in search.rejected.items() if o not in subset}
    report.breaks_after = trial.counted
    return trial.compiled


_Kept = Tuple[Tuple[str, ...], "_Run"]  # options worth keeping, and their trial


class _OptionSearch:
    """Finds the Dynamo options to enable. All those called for are tried together first;
    while no combination is worth keeping and one failed (raised, or changed the outputs),
    every combination of one option fewer is tried: the first size with one worth keeping
    wins (of several, the one with the fewest breaks). Then each option is dropped in turn
    while the rest still remove as many breaks, so one that adds nothing is not enabled.
    An option rejected keeps the first reason found."""

    def __init__(self, profiler: _Profiler, mended: Any, after: _Run, compile_kwargs: Any):
        self.profiler, self.mended, self.after = profiler, mended, after
        self.compile_kwargs = compile_kwargs
        self.expected = profiler.eager()
        self.rejected: Dict[str, str] = {}
        self.last_tried: Tuple[str, ...] = ()

    def trial(self, subset: Tuple[str, ...]) -> Tuple[Optional[_Run], str]:
        self.last_tried = subset
        options = dict.fromkeys(subset, True)
        run, why = _capture_trial(
            self.profiler, self.mended, options, self.after, self.expected, self.compile_kwargs
        )
        for option in subset if run is None else ():
            others = ", ".join(o for o in subset if o != option)
            self.rejected.setdefault(option, f"{why} (tried with {others})" if others else why)
        return run, why

    def largest_kept(self, called: Tuple[str, ...]) -> Optional[_Kept]:
        for size in range(len(called), 0, -1):
            kept, failed = [], False
            for subset in itertools.combinations(called, size):
                run, why = self.trial(subset)
                if run is not None:
                    kept.append((subset, run))
                elif not why.endswith(_NO_FEWER):
                    failed = True
            if kept:
                return min(kept, key=lambda k: len(k[1].breaks))
            if not failed:  # they ran and removed nothing: fewer options will not either
                return None
        return None

    def fewest_options(self, best: Optional[_Kept]) -> Optional[_Kept]:
        for option in best[0] if best else ():
            if len(best[0]) == 1:
                break
            subset = tuple(o for o in best[0] if o != option)
            run, _ = self.trial(subset)
            if run is not None and len(run.breaks) <= len(best[1].breaks):
                best = (subset, run)
                self.rejected[option] = f"not needed: {len(run.breaks)} break(s) without it too"
        return best


def _capture_trial(
    profiler: _Profiler,
    mended: Any,
    options: Dict[str, bool],
    after: _Run,
    expected: Any,
    torch_compile_kwargs: Dict[str, Any],
) -> Tuple[Optional[_Run], str]:
    """Runs ``mended`` under ``options``: under ``explain``, then compiled with the caller's
    backend, since a backend can fail on graphs Dynamo captures under them (Inductor's bmm
    lowering guards on an unbacked size). Returns the explain run, with the compiled object
    in ``compiled``, and "" when the options are worth keeping; otherwise why not."""
    import torch

    try:
        with boundary.dynamo_config(options):
            trial = profiler.explain(mended, keep_result=True)
    except Exception as exc:  # Dynamo fails inside these options on real models
        return None, f"Dynamo raised {_exception_line(exc)}"
    if len(trial.breaks) >= len(after.breaks):
        return None, f"{len(trial.breaks)} break(s) with it, {len(after.breaks)} without{_NO_FEWER}"
    if not _same_output(trial.output, expected):
        return None, "the outputs differ from the eager program's on the example inputs"
    try:
        trial.compiled = torch.compile(
            mended, **boundary.with_eager_precision(torch_compile_kwargs)
        )
        output = profiler.call(trial.compiled, options)
    except Exception as exc:
        return None, f"the compiled program raised {_exception_line(exc)}"
    if not _same_output(output, expected, compiled=True):
        return None, "the compiled program's outputs differ from the eager program's"
    return trial, ""


def _exception_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {explainer._first_line_of(exc) or 'no message'}"


# A compiled program's floating outputs against the eager program's: a backend reorders
# and fuses arithmetic, so they agree to these tolerances, not to allclose's defaults.
_COMPILED_TOLERANCE = {"float16": (1e-2, 1e-3), "bfloat16": (1.6e-2, 1e-2)}
_COMPILED_TOLERANCE_DEFAULT = (1e-4, 1e-5)


def _same_output(a: Any, b: Any, compiled: bool = False) -> bool:
    """Equal results: tensors of one shape and dtype with equal (float: close; ``compiled``:
    close to a backend's tolerance) values, through tuples, lists and dicts; anything else
    by ``==``."""
    import torch

    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.is_floating_point() or a.is_complex():
            if not compiled:
                return bool(torch.allclose(a, b, equal_nan=True))
            dtype = str(a.dtype).replace("torch.", "")
            rtol, atol = _COMPILED_TOLERANCE.get(dtype, _COMPILED_TOLERANCE_DEFAULT)
            return bool(torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
        return bool(torch.equal(a, b))
    if isinstance(a, (tuple, list)) and type(a) is type(b):
        return len(a) == len(b) and all(_same_output(x, y, compiled) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_output(a[k], b[k], compiled) for k in a)
    try:
        return bool(a == b)
    except Exception:
        return False


def _announce(report: CompileReport) -> None:
    """One INFO log record always; a ``CaptureOptionsEnabled`` warning when options were
    enabled (they change how Dynamo traces, so the user must hear of it)."""
    logging.getLogger("graphmend").info("%s", report)
    if not report.capture_options:
        return
    parts = []
    for option, breaks in report.capture_reasons.items():
        sites = ", ".join(f"{os.path.basename(b.filename)}:{b.line}" for b in breaks)
        parts.append(f"torch._dynamo.config.{option} (breaks at {sites})")
    warnings.warn(
        "graphmend.compile enabled " + "; ".join(parts) + " for this compile's calls only; "
        "graphmend.compile_report(compiled) has the details",
        CaptureOptionsEnabled,
        stacklevel=3,
    )
