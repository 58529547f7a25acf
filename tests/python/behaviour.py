"""Observing what a program does and comparing two runs of it: shared by the rewrite cases'
driver (test_cases.py), the peer corpus' driver (test_peer.py) and bench/peer.py.

A program is a case module (tests/cases/README.md; the peer corpus uses the same fields):
``INPUTS``, optional ``GRAD`` and ``reset()``. ``observe`` runs one input through a callable
and returns what the program did: its returned value or raised exception, printed text
(stdout, and stderr less torch's own log lines), the log records of the module's own loggers
and the warnings its file issued. It needs no pytest fixture, so a script measures with it too.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import re
import warnings
from pathlib import Path

import torch

import graphmend
import graphmend.runtime as runtime
from graphmend import boundary


def grad_mode(module):
    return contextlib.nullcontext() if getattr(module, "GRAD", False) else torch.no_grad()


def fresh_inputs(module, index):
    # Inputs are cloned so an in-place change by one run cannot reach the next.
    return tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in module.INPUTS[index])


def _normalise(value):
    if isinstance(value, torch.Tensor):
        return ("tensor", value.dtype, tuple(value.shape), value.detach().clone())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_normalise(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _normalise(v)) for k, v in value.items()))
    return ("value", value)


def _same(a, b, close=False):
    """Equal values; ``close``: tensors and floats within float32 rounding (a compiler that
    fuses differently, Inductor, changes the last bits alike for the original and the mended,
    by how much depends on the processor's vector instructions)."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if close and a.is_floating_point():
            return torch.allclose(a.float(), b.float(), rtol=1e-4, atol=1e-5, equal_nan=True)
        return torch.equal(
            torch.nan_to_num(a.float(), nan=12345.0), torch.nan_to_num(b.float(), nan=12345.0)
        )
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y, close) for x, y in zip(a, b))
    if close and type(a) is float and type(b) is float:  # a tensor's value read with .item()
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5)
    return a == b


# Torch's own log lines (a Dynamo warning on the first compile of a site) on stderr.
_TORCH_LOG_LINE = re.compile(r"^[DIWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ ")


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


@contextlib.contextmanager
def _every_log_record():
    """Every log record reaching the root logger, with the root at DEBUG (a logging program
    is measured with every level enabled, which decides whether a logging call is reached)."""
    root = logging.getLogger()
    handler, level = _Records(), root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler.records
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def observe(module, call, index):
    """Runs call(*INPUTS[index]) and returns what the program did, comparable with
    assert_same_behaviour. Log records count for the loggers named after the module's package
    (its first name component), warnings for the files below its folder's parent (the
    corpus root: tests/cases, tests/peer)."""
    prefix = module.__name__.split(".")[0] + "."
    root = Path(module.__file__).resolve().parents[1]
    if hasattr(module, "reset"):
        module.reset()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        caught = stack.enter_context(warnings.catch_warnings(record=True))
        warnings.simplefilter("always")
        records = stack.enter_context(_every_log_record())
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        stack.enter_context(grad_mode(module))
        try:
            outcome = ("returned", _normalise(call(*fresh_inputs(module, index))))
        except Exception as exc:  # the program's own exceptions are part of its behaviour
            outcome = ("raised", type(exc), str(exc))
    logged = tuple(
        (r.name, r.levelno, r.getMessage(), Path(r.pathname).name, r.lineno, r.funcName)
        for r in records
        if r.name.startswith((prefix, "graphmend." + prefix))
    )
    warned = tuple(
        (w.category, str(w.message), Path(w.filename).name, w.lineno)
        for w in caught
        if root in Path(w.filename).resolve().parents
    )
    stderr = "".join(
        line for line in err.getvalue().splitlines(keepends=True) if not _TORCH_LOG_LINE.match(line)
    )
    return {
        "outcome": outcome,
        "printed": out.getvalue(),
        "stderr": stderr,
        "records": logged,
        "warnings": warned,
    }


def behaviour_differences(expected, actual, *, classes_by_name=False, close=False):
    """The names of what differs between two observations (empty when they agree).
    ``classes_by_name``: exception and warning classes compare by module and qualified name
    (a module compiled from mended text defines its own copy of the program's classes)."""
    differ = [key for key in ("printed", "stderr", "records") if actual[key] != expected[key]]
    if _warnings(actual, classes_by_name) != _warnings(expected, classes_by_name):
        differ.append("warnings")
    e, a = expected["outcome"], actual["outcome"]
    if e[0] != a[0]:
        return differ + ["outcome"]
    if e[0] == "raised":
        if classes_by_name:
            e = (e[0], (e[1].__module__, e[1].__qualname__), e[2])
            a = (a[0], (a[1].__module__, a[1].__qualname__), a[2])
        if e[1:] != a[1:]:
            differ.append("outcome")
    elif not _same(e[1], a[1], close):
        differ.append("outcome")
    return differ


def assert_same_behaviour(expected, actual, *, classes_by_name=False, close=False):
    for key in ("printed", "stderr", "records"):
        assert actual[key] == expected[key], key
    assert _warnings(actual, classes_by_name) == _warnings(expected, classes_by_name), "warnings"
    e, a = expected["outcome"], actual["outcome"]
    assert e[0] == a[0], (e, a)
    assert not behaviour_differences(
        expected, actual, classes_by_name=classes_by_name, close=close
    ), (e, a)


def _warnings(observed, classes_by_name):
    """The warnings observed, their categories by name where a module's copy defines its own
    classes (a warning class of the mended text is not the original's object)."""
    if not classes_by_name:
        return observed["warnings"]
    return tuple(
        ((category.__module__, category.__qualname__), *rest)
        for category, *rest in observed["warnings"]
    )


def breaks_of(module, obj):
    """(breaks, graphs): the break reasons Dynamo reports and the graphs it compiles, on
    INPUTS[0]. (explain's graph_break_count, graphs - 1, misses a break before the first
    tensor op and frames Dynamo gives up on, e.g. a break inside a loop.)"""
    if hasattr(module, "reset"):  # process state a run leaves (a registry) shapes the trace
        module.reset()
    with grad_mode(module):
        report = graphmend.explain(obj, *fresh_inputs(module, 0))
    return len(report.breaks), report.graph_count


def never_more_breaks(original, mended):
    """Whether (breaks, graphs) ``mended`` adds no break to ``original``: no more break reasons,
    and no more graphs where Dynamo compiled the original at all (0 graphs: it gave up on the
    frame, and any graph is progress)."""
    return mended[0] <= original[0] and (original[1] == 0 or mended[1] <= original[1])


def behind_boundary(obj):
    """torch.compile(obj, backend="eager") behind the compile boundary graphmend.compile adds:
    deferred calls replayed after each call, a failed trap raised as the original exception,
    a failed rerun check answered by running the call again eagerly."""
    return boundary.behind_boundary(torch.compile(obj, backend="eager"), like=obj)


def _tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return []


def _assert_same_grad(expected, actual):
    if expected is None:
        assert actual is None or torch.all(actual == 0)
    else:
        torch.testing.assert_close(actual, expected, rtol=1e-6, atol=1e-6, equal_nan=True)


def assert_same_gradients(module, original, compiled, indices=None):
    """Backward through ``compiled`` gives ``original``'s gradients, for the floating inputs
    and the parameters, on INPUTS[i] for each i of ``indices`` (default: all)."""
    parameters = (
        (list(original.parameters()), list(compiled.parameters()))
        if isinstance(original, torch.nn.Module)
        else ([], [])
    )
    for index in range(len(module.INPUTS)) if indices is None else indices:
        observed = []
        for obj, own_parameters in ((original, parameters[0]), (compiled, parameters[1])):
            for p in own_parameters:
                p.grad = None
            args = tuple(
                a.clone().requires_grad_(True)
                if isinstance(a, torch.Tensor) and a.is_floating_point()
                else a
                for a in fresh_inputs(module, index)
            )
            if hasattr(module, "reset"):
                module.reset()
            try:
                outputs = _tensors(obj(*args))
            except Exception as exc:  # an input that raises by design raises in both
                observed.append(("raised", type(exc), str(exc)))
                continue
            assert outputs, "a GRAD program returns tensors"
            differentiable = [t for t in outputs if t.requires_grad]
            if differentiable:
                sum(t.sum() for t in differentiable).backward()
            observed.append(([t.requires_grad for t in outputs], args, own_parameters))
        if observed[0][0] == "raised" or observed[1][0] == "raised":
            assert observed[0] == observed[1]
            continue
        (e_flags, e_args, e_params), (a_flags, a_args, a_params) = observed
        assert a_flags == e_flags
        for e, a in zip(e_args, a_args):
            if isinstance(e, torch.Tensor):
                _assert_same_grad(e.grad, a.grad)
        for e, a in zip(e_params, a_params):
            _assert_same_grad(e.grad, a.grad)


def mended_text_module(path, name):
    """A module compiled from mend_source's text for the file at ``path``, as the import hook
    runs it: mended and compiled under the file's path, named ``name`` (the program's module
    name, so its loggers are the program's)."""
    import types

    from graphmend.codegen import compile_text

    path = Path(path)
    result = graphmend.mend_source(path.read_text(encoding="utf-8"), filename=str(path))
    module = types.ModuleType(name)
    module.__file__ = str(path)
    # with the original's line numbers, as the hook compiles it (warnings, tracebacks)
    exec(compile_text(result.source, list(result.line_map), str(path)), module.__dict__)
    return module


def pending_params(names, check, pending):
    """pytest params of ``names``, with a strict xfail mark where (name, check) is in
    ``pending`` ({(name, check): reason}): fixing one fails until its entry is removed."""
    import pytest

    out = []
    for name in names:
        reason = pending.get((name, check))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


def _forget_conversion_verdicts():
    """The runtime's verdicts on torch.cond sites and scalar capture, as in a new process."""
    state = graphmend.runtime.state
    state.untraceable_conds.clear()
    state.capture_frames.clear()
    state.capture_refused.clear()


def _fixtures():
    import pytest

    @pytest.fixture(autouse=True)
    def log_everything(caplog):
        # Logging programs are measured with every level enabled, which decides whether a
        # logging call is reached (observe does the same for each run).
        caplog.set_level(logging.DEBUG)

    @pytest.fixture(autouse=True)
    def fresh_dynamo():
        # as in a new process: no compiled code, no torch.cond site found untraceable yet
        torch._dynamo.reset()
        _forget_conversion_verdicts()
        yield
        torch._dynamo.reset()
        _forget_conversion_verdicts()

    return log_everything, fresh_dynamo


# Autouse fixtures for a driver module: `from behaviour import log_everything, fresh_dynamo`.
log_everything, fresh_dynamo = _fixtures()


@contextlib.contextmanager
def program_module(directory, name, source):
    """The module ``name`` imported from ``source`` written to ``directory`` (a real file, as
    the mender reads it), with Dynamo's caches and the runtime's records fresh around it."""
    import importlib.util
    import sys

    path = Path(directory) / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        torch._dynamo.reset()
        runtime.discard()
        yield module
    finally:
        runtime.discard()
        sys.modules.pop(name, None)
