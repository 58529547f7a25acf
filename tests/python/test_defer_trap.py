"""[Defer] and [Trap] end to end: mend_source on a module, then the mended module run
eagerly and compiled (torch.compile(backend="eager") inside the compile boundary: flush
after the call, translate a trap's RuntimeError) must return, print, log, warn and raise
exactly what the original does, while torch._dynamo.explain shows the breaks gone.
Declines: each safety condition gives fixed=False and a message naming it.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import textwrap
import warnings

import pytest

torch = pytest.importorskip("torch")

import graphmend  # noqa: E402
import graphmend.runtime as rt  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    rt.discard()
    yield
    rt.discard()


def load_pair(tmp_path, name, source):
    """The original module (imported from a file) and the mended one (compiled under the
    same filename and registered in sys.modules, as graphmend.mend does)."""
    # The compile call makes `forward` an entry point (what Dynamo traces); it is never run.
    source = textwrap.dedent(source) + '\n_entry = torch.compile(forward, backend="eager")\n'
    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    result = graphmend.mend_source(source, filename=str(path))
    assert result.error is None

    spec = importlib.util.spec_from_file_location(f"{name}_original", path)
    original = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = original
    spec.loader.exec_module(original)

    mended = type(sys)(f"{name}_mended")
    mended.__file__ = str(path)
    sys.modules[mended.__name__] = mended
    exec(compile(result.source, str(path), "exec"), mended.__dict__)
    return original, mended, result


def boundary(fn):
    """graphmend.compile's wrapper around a compiled callable."""
    compiled = torch.compile(fn, backend="eager")

    def call(*args):
        try:
            return compiled(*args)
        except RuntimeError as exc:
            original = rt.translate(exc)
            if original is None:
                raise
            raise original from None
        finally:
            rt.flush()

    return call


def observe(fn, args, capsys, caplog):
    capsys.readouterr()
    caplog.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = ("value", fn(*args))
        except Exception as exc:  # noqa: BLE001 - the exception is the observation
            outcome = ("raised", type(exc).__name__, str(exc), exc.args)
    out = capsys.readouterr()
    records = [
        (r.name, r.levelname, r.getMessage(), r.pathname, r.lineno, r.funcName)
        for r in caplog.records
    ]
    caught = [
        (w.category, str(w.message), w.filename, w.lineno)
        for w in caught
        if "torch" not in w.filename
    ]
    return outcome, out.out, out.err, records, caught


def assert_same(expected, actual):
    (e_outcome, *e_rest), (a_outcome, *a_rest) = expected, actual
    assert e_outcome[0] == a_outcome[0], (e_outcome, a_outcome)
    if e_outcome[0] == "value":
        e_value, a_value = e_outcome[1], a_outcome[1]
        if isinstance(e_value, torch.Tensor):
            assert torch.equal(e_value, a_value)
        else:
            assert e_value == a_value
    else:
        assert e_outcome == a_outcome
    labels = ("stdout", "stderr", "log records", "warnings")
    for label, e, a in zip(labels, e_rest, a_rest):
        assert e == a, label


def check_program(
    tmp_path,
    capsys,
    caplog,
    name,
    source,
    inputs,
    entry="forward",
    mended_breaks=0,
    levels=logging.DEBUG,
    explain_args=None,
):
    caplog.set_level(levels)
    original, mended, result = load_pair(tmp_path, name, source)

    def run(module, fn):
        if hasattr(module, "reset"):
            module.reset()  # process state such as a warning_once cache
        return observe(fn, args(), capsys, caplog)

    for args in inputs:
        expected = run(original, getattr(original, entry))
        assert_same(expected, run(mended, getattr(mended, entry)))
        torch._dynamo.reset()
        assert_same(expected, run(mended, boundary(getattr(mended, entry))))
    torch._dynamo.reset()
    explained = torch._dynamo.explain(getattr(mended, entry))(*(explain_args or inputs[0])())
    rt.discard()
    assert explained.graph_break_count == mended_breaks, explained.break_reasons
    return result


# ---------------------------------------------------------------------------------------------
# [Defer].

PRINTS = """
    import sys
    import torch

    def forward(x: torch.Tensor, step: int):
        y = x * 2
        print("y =", y)
        print(f"step {step}: sum={y.sum():.3f} {y!r} {{braces}} {step=} {step:>{step}}")
        print(y.shape, y.dtype, sep=" | ", end="!\\n")
        print("to stderr", y.sum(), file=sys.stderr)
        print()
        y.add_(1)  # printed values must not show this
        print(f"after {y}")
        return y
"""


def test_prints(tmp_path, capsys, caplog):
    result = check_program(
        tmp_path, capsys, caplog, "prints", PRINTS, [lambda: (torch.tensor([1.0, -2.0]), 4)]
    )
    assert [(d.code, d.fixed, d.rewrite) for d in result.diagnostics] == [
        ("GM102", True, "defer")
    ] * 6


LOGGING = """
    import functools
    import logging
    import torch

    @functools.lru_cache(None)
    def warning_once(self, *args, **kwargs):
        self.warning(*args, **kwargs)

    # What transformers does: a once-per-process method on every logger.
    if not hasattr(logging.Logger, "warning_once"):
        logging.Logger.warning_once = warning_once

    logger = logging.getLogger("graphmend.test_defer_trap")

    def reset():
        logging.Logger.warning_once.cache_clear()

    def forward(x: torch.Tensor):
        h = x.relu()
        logger.info("h sum %s over %d values", h.sum(), h.numel())
        logger.warning(
            "max %s",  # a multi-line call reports its first line
            h.max(),
        )
        logger.debug(f"mean {h.mean():.2f}")
        logger.log(logging.ERROR, "level given: %s", h.min())
        logger.warning_once("only once per process")
        h.mul_(0)
        return h
"""


def test_logging(tmp_path, capsys, caplog):
    check_program(
        tmp_path,
        capsys,
        caplog,
        "logs",
        LOGGING,
        [lambda: (torch.tensor([1.0, 3.0]),), lambda: (torch.tensor([2.0]),)],
    )


def test_logging_disabled_level_logs_nothing(tmp_path, capsys, caplog):
    check_program(
        tmp_path,
        capsys,
        caplog,
        "logs_quiet",
        LOGGING,
        [lambda: (torch.tensor([1.0, 3.0]),)],
        levels=logging.ERROR,
    )


WARNINGS = """
    import warnings
    import torch

    def forward(x: torch.Tensor):
        y = x.clamp(min=0)
        warnings.warn("negative inputs are clamped")
        warnings.warn(f"clamped to {y.min()}", RuntimeWarning)
        warnings.warn(message="keyword message", category=FutureWarning)
        return y
"""


def test_warnings(tmp_path, capsys, caplog):
    check_program(
        tmp_path, capsys, caplog, "warns", WARNINGS, [lambda: (torch.tensor([-1.0, 2.0]),)]
    )


MODULE_PRINT = """
    import torch
    from torch import nn

    def report(name: str, t: torch.Tensor):
        print(name, t)

    class Model(nn.Module):
        def forward(self, x: torch.Tensor):
            h = x * 3
            report("h", h)
            print("out", h - 1)
            return h - 1

    model = Model()

    def forward(x):
        return model(x)
"""


def test_print_in_module_and_helper(tmp_path, capsys, caplog):
    check_program(
        tmp_path, capsys, caplog, "module_print", MODULE_PRINT, [lambda: (torch.tensor([1.0]),)]
    )


USER_OBJECT = """
    import torch

    class Status:
        def __init__(self):
            self.calls = 0

        def __str__(self):
            self.calls += 1
            return f"status #{self.calls}"

    STATUS = Status()

    def reset():
        STATUS.calls = 0

    def forward(x: torch.Tensor):
        y = x * 2
        print("first", y)
        z = y + 1
        print(STATUS, z)
        print("last", z)
        return z * 3
"""


def test_declined_print_keeps_the_output_order(tmp_path, capsys, caplog):
    # The user object's print stays a break (its text is formatted when it runs); the
    # deferred prints around it still come out in the original order.
    result = check_program(
        tmp_path,
        capsys,
        caplog,
        "user_object",
        USER_OBJECT,
        [lambda: (torch.tensor([1.0]),)],
        mended_breaks=1,
    )
    assert [(d.code, d.fixed) for d in result.diagnostics] == [
        ("GM102", True),
        ("GM102", False),
        ("GM102", True),
    ]
    assert "instance of a class of this module" in result.diagnostics[1].message


# ---------------------------------------------------------------------------------------------
# [Trap].

GUARDS = """
    import torch

    class ShapeError(ValueError):
        pass

    def forward(x: torch.Tensor):
        if x.sum() < 0:
            raise ValueError("negative")
        if not torch.isfinite(x).all():
            raise FloatingPointError("non-finite input")
        if (x > 10).any() or x.isnan().any():
            raise ShapeError
        if x.dim() == 1 and (x == 7).any():  # the static part stays a Python if
            raise KeyError("seven")
        return x * 2
"""


@pytest.mark.parametrize("value", [1.0, -1.0, float("inf"), 20.0, 7.0])
def test_guards(tmp_path, capsys, caplog, value):
    result = check_program(
        tmp_path,
        capsys,
        caplog,
        "guards",
        GUARDS,
        [lambda: (torch.tensor([value, 2.0]),), lambda: (torch.tensor([1.0]),)],
        explain_args=lambda: (torch.tensor([1.0]),),
    )
    assert [(d.code, d.fixed, d.rewrite) for d in result.diagnostics] == [
        ("GM105", True, "trap")
    ] * 4


PRINT_THEN_GUARD = """
    import torch

    def forward(x: torch.Tensor):
        print("checking", x)
        if x.sum() < 0:
            raise ValueError("negative")
        print("ok")
        return x + 1
"""


@pytest.mark.parametrize("value", [1.0, -1.0])
def test_print_before_a_failing_guard_is_not_lost(tmp_path, capsys, caplog, value):
    # A guard with deferred calls pending keeps its Python branch (one break remains), so
    # the prints made before it come out before the exception, as in the original.
    check_program(
        tmp_path,
        capsys,
        caplog,
        "print_guard",
        PRINT_THEN_GUARD,
        [lambda: (torch.tensor([value]),)],
        mended_breaks=1,
        explain_args=lambda: (torch.tensor([1.0]),),
    )


@pytest.mark.parametrize(
    "backend", ["counting", pytest.param("inductor", marks=pytest.mark.inductor)]
)
@pytest.mark.parametrize("value", [1.0, -1.0])
def test_a_guard_after_prints_is_one_graph_behind_the_boundary(
    tmp_path, capsys, caplog, backend, value
):
    """Behind graphmend.compile's boundary the guard is recorded after the pending prints:
    one graph, and on failure the prints made before the guard, then the exception, and
    not the print after it."""
    from graphmend.boundary import behind_boundary

    original, mended, _ = load_pair(tmp_path, f"print_guard_{backend}", PRINT_THEN_GUARD)
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    # as graphmend.compile does: the boundary knows the frame it compiles
    compiled = behind_boundary(
        torch.compile(mended.forward, backend=counting if backend == "counting" else "inductor")
    )
    expected = observe(original.forward, (torch.tensor([value]),), capsys, caplog)
    for _ in range(2):  # the second call reuses the compiled graph
        assert_same(expected, observe(compiled, (torch.tensor([value]),), capsys, caplog))
    assert rt.pending() == []
    if backend == "counting":
        assert len(graphs) == 1


@pytest.mark.parametrize("value", [1.0, -1.0])
def test_a_guard_after_prints_breaks_behind_a_boundary_that_does_not_know_its_frame(
    tmp_path, capsys, caplog, value
):
    """A boundary told nothing of what it compiles cannot tell that nothing of the call runs
    after the guard's graph, so the guard keeps its break: two graphs, the same output."""
    from graphmend.boundary import boundary

    original, mended, _ = load_pair(tmp_path, "print_guard_unknown", PRINT_THEN_GUARD)
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    compiled = boundary(torch.compile(mended.forward, backend=counting))
    expected = observe(original.forward, (torch.tensor([value]),), capsys, caplog)
    assert_same(expected, observe(compiled, (torch.tensor([value]),), capsys, caplog))
    # the graph after the break is compiled only when the guard passes
    assert rt.pending() == [] and len(graphs) == (2 if value > 0 else 1)


def test_guard_alone_has_no_break(tmp_path, capsys, caplog):
    check_program(tmp_path, capsys, caplog, "guard_alone", GUARDS, [lambda: (torch.tensor([1.0]),)])


# ---------------------------------------------------------------------------------------------
# Declines: each safety condition, fixed=False, a message naming it.


def diagnostics_of(source, **options):
    result = graphmend.mend_source(textwrap.dedent(source), filename="decline.py", **options)
    return result, [
        (d.code, d.fixed, d.message.split("; not rewritten: ")[-1]) for d in result.diagnostics
    ]


DECLINE_HEADER = """
import logging
import warnings
import torch

logger = logging.getLogger("d")

class Config:
    pass

CONFIG = Config()
ERROR = ValueError("prebuilt")

class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor, n: int):
"""


@pytest.mark.parametrize(
    "statement, code, reason",
    [
        (
            "printed = print(x)",
            "GM102",
            "the call's result is used (it is not a statement of its own)",
        ),
        (
            "print(self)",
            "GM102",
            "argument `self` is a user object whose formatting reads mutable state at replay time",
        ),
        (
            "print(CONFIG, x)",
            "GM102",
            "argument `CONFIG` is an instance of a class of this module, whose formatting may read "
            "mutable state at replay time",
        ),
        (
            "print(v for v in x)",
            "GM102",
            "argument `(v for v in x)` is not a plain value (generator, lambda, await, yield or assignment)",
        ),
        (
            "print(*n, f'{x}')",
            "GM102",
            "an f-string argument follows *args (its position is not known)",
        ),
        (
            "print(x, file=n)",
            "GM102",
            "print writes to a stream other than sys.stdout/sys.stderr, which the program may read back "
            "before the replay",
        ),
        (
            "logger.exception('boom')",
            "GM103",
            "logger.exception records the exception being handled at the call",
        ),
        (
            "logger.error('boom', exc_info=True)",
            "GM103",
            "exc_info refers to the exception being handled at the call",
        ),
        ("logger.info('m', stack_info=True)", "GM103", "stack_info records the stack at the call"),
        ("logger.info('m', stacklevel=2)", "GM103", "stacklevel names a caller's frame"),
        (
            "warnings.warn('m', skip_file_prefixes=('lib/',))",
            "GM104",
            "warnings.warn with skip_file_prefixes names a caller's frame",
        ),
        (
            "if x.sum() < 0:\n            raise ValueError(f'a {x}')\n        else:\n            x = x + 1",
            "GM105",
            "the if statement has an else branch, which [Where] declines: a branch raises, "
            "and its raise has no guard form: the exception message is neither a string literal nor "
            "formatted from values other than tensors",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and len(v) < 30 else None,
)
def test_declines(statement, code, reason):
    source = DECLINE_HEADER + "        " + statement + "\n        return x\n"
    result, diagnostics = diagnostics_of(source)
    assert (code, False, reason) in diagnostics, diagnostics
    assert all(not fixed for _, fixed, _ in diagnostics)
    # Nothing but ordering wraps of declined prints changes.
    assert "defer" not in result.source and "guard(" not in result.source


def test_a_call_inside_a_foreign_with_is_deferred_behind_the_stream_check():
    """A call in the block of a manager not torch's is recorded only while sys.stdout and
    sys.stderr are the boundary's (runtime.defer_within); a whole branch there is not
    deferred with its condition (the branch keeps its break, its call is deferred alone)."""
    source = (
        DECLINE_HEADER + "        with open('log.txt') as f:\n            print(x)\n"
        "            if x.sum() > 0:\n                print('big')\n        return x\n"
    )
    result, diagnostics = diagnostics_of(source)
    assert result.source.count("__graphmend_rt__.defer_within(") == 2
    assert ("GM102", True, "print call `print(x)`") in diagnostics
    [branch] = [d for d in diagnostics if d[0] == "GM101"]
    assert not branch[1] and "inside `with open('log.txt') as f:`" in branch[2]


@pytest.mark.parametrize(
    "guard",
    [
        "if x.sum() < 0:\n            raise ValueError(f'bad {x}')",
        "if x.sum() < 0:\n            x = x - 1\n            raise ValueError('a')",
        "if x.sum() < 0:\n            raise ERROR",
        "err = ValueError('a')\n        if x.sum() < 0:\n            raise err",
        "if x.sum() < 0:\n            raise ValueError('a') from None",
        "if x.sum() < 0:\n            raise ValueError('a', 'b')",
    ],
)
def test_guards_the_in_graph_forms_cannot_lower_rerun(guard):
    """Their body stays as written; a failure runs the call again eagerly (test_rerun.py)."""
    source = DECLINE_HEADER + "        " + guard + "\n        return x\n"
    result, diagnostics = diagnostics_of(source)
    assert [(code, fixed) for code, fixed, _ in diagnostics] == [("GM105", True)]
    assert "if __graphmend_rt__.rerun_if(x.sum() < 0):" in result.source


def test_disabled_rewrites_are_reported():
    source = (
        DECLINE_HEADER
        + "        print(x)\n        if x.sum() < 0:\n            raise ValueError('a')\n        return x\n"
    )
    result, diagnostics = diagnostics_of(source, defer=False, trap=False)
    assert diagnostics == [
        ("GM102", False, "the [defer] rewrite is disabled"),
        ("GM105", False, "the [trap] rewrite is disabled"),
    ]
    assert not result.changed


def test_condition_that_is_not_data_dependent_is_left_alone():
    source = (
        DECLINE_HEADER + "        if n < 0:\n            raise ValueError('a')\n        return x\n"
    )
    result, diagnostics = diagnostics_of(source)
    assert diagnostics == [] and not result.changed


def test_mended_output_is_a_fixed_point_and_maps_lines():
    source = textwrap.dedent(GUARDS) + textwrap.dedent(PRINTS).replace("import sys\n", "")
    result = graphmend.mend_source(source, filename="both.py")
    again = graphmend.mend_source(result.source, filename="both.py")
    assert again.source == result.source and not again.changed
    mended_lines = result.source.split("\n")
    original_lines = source.split("\n")
    assert len(result.line_map) == len(mended_lines)
    for index, text in enumerate(mended_lines):
        if text.strip().startswith("return"):
            assert original_lines[result.line_map[index] - 1] == text


def test_unparsable_input_is_returned_unchanged_with_an_error():
    result = graphmend.mend_source("x = = 1\nprint(x)\n", filename="bad.py")
    assert result.source == "x = = 1\nprint(x)\n"
    assert not result.changed
    assert result.error is not None and result.error.code == "GM001"
    assert (result.error.line, result.error.message) == (1, "invalid syntax")
    assert result.diagnostics == (result.error,)
