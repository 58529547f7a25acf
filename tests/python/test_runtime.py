"""graphmend.runtime: what mended code calls, eager and under torch.compile.

Functions here call the runtime helpers directly, written as the mender emits them, so
the runtime contract is pinned independently of the C++ rewrites.
"""

from __future__ import annotations

import contextlib
import functools
import enum
import logging
import re
import sys
import types
from pathlib import Path
import warnings

import pytest

torch = pytest.importorskip("torch")

import graphmend.runtime as rt  # noqa: E402

logger = logging.getLogger("graphmend.test_runtime")


class Rejected(Exception):
    """A module-level exception class (resolved by module + qualname in translate)."""


@pytest.fixture(autouse=True)
def clean_runtime():
    torch._dynamo.reset()
    rt.discard()
    yield
    rt.discard()


def compiled(fn):
    return torch.compile(fn, backend="eager", fullgraph=True)


def run_at_boundary(fn, *args):
    """What graphmend.compile does around a compiled call."""
    try:
        return fn(*args)
    except RuntimeError as exc:
        original = rt.translate(exc)
        if original is None:
            raise
        raise original from None
    finally:
        rt.flush()


# ---------------------------------------------------------------------------------------------
# [Defer]: print.


def printing(x):
    y = x * 2
    rt.defer(("model.py", 3, "printing"), print, "y =", y, sep="|", end="!\n")
    y.add_(1)  # an in-place change after the print must not show in its output
    return y


def test_defer_calls_at_once_when_not_compiling(capsys):
    out = printing(torch.ones(2))
    assert capsys.readouterr().out == "y =|tensor([2., 2.])!\n"
    assert torch.equal(out, torch.full((2,), 3.0))
    assert rt.pending() == []


def test_defer_records_while_compiling_and_flush_replays(capsys):
    fn = compiled(printing)
    out = fn(torch.ones(2))
    assert capsys.readouterr().out == ""
    assert len(rt.pending()) == 1
    rt.flush()
    assert capsys.readouterr().out == "y =|tensor([2., 2.])!\n"
    assert torch.equal(out, torch.full((2,), 3.0))
    assert rt.pending() == []


def test_defer_has_no_graph_break():
    explained = torch._dynamo.explain(printing)(torch.ones(2))
    assert explained.graph_break_count == 0
    assert explained.graph_count == 1


def formatting(x):
    s = x.sum()
    rt.defer_format(
        ("model.py", 9, "formatting"),
        print,
        ((0, "sum={0:.2f} {1!r:>6} {{lit}}"), ("end", "{0}\n")),
        (s, "ab"),
        end=(".",),
    )
    s.mul_(10)
    return s


def test_defer_format_eager_and_compiled(capsys):
    expected = "sum=3.00   'ab' {lit}.\n"
    formatting(torch.ones(3))
    assert capsys.readouterr().out == expected
    assert f"sum={torch.ones(3).sum():.2f} {'ab'!r:>6} {{lit}}" + "." + "\n" == expected
    out = compiled(formatting)(torch.ones(3))
    assert capsys.readouterr().out == ""
    rt.flush()
    assert capsys.readouterr().out == expected
    assert out.item() == 30.0


def test_defer_print_to_file_keyword(capsys):
    import io

    stream = io.StringIO()

    def fn(x):
        rt.defer(("m.py", 1, "fn"), print, x, file=stream)
        return x + 1

    compiled(fn)(torch.zeros(1))
    assert stream.getvalue() == ""
    rt.flush()
    assert stream.getvalue() == "tensor([0.])\n"


def test_unrecordable_argument_is_called_at_once(capsys):
    class Counter:
        def __init__(self):
            self.n = 0

        def __str__(self):
            return f"Counter({self.n})"

    counter = Counter()

    def fn(x):
        rt.defer(("m.py", 1, "fn"), print, counter)
        return x + 1

    # Not snapshot-safe: the runtime calls print at once (Dynamo breaks there, as the
    # original did), so the text is the one of the call's time.
    torch.compile(fn, backend="eager")(torch.zeros(1))
    counter.n = 5
    rt.flush()
    assert capsys.readouterr().out == "Counter(0)\n"


class Phase(str, enum.Enum):
    TRAINING = "training"


class Level(enum.IntEnum):
    LOW = 1


class Named(enum.Enum):
    ONE = 1

    def __str__(self):  # text of its own: it may read anything
        return f"Named#{len(_named_calls)}"


_named_calls: list = []


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_enum_members_are_recorded_where_the_enum_module_formats_them(capsys, backend):
    def fn(x, member):
        rt.defer_format(("m.py", 1, "fn"), print, ((0, "phase {0}"),), (member,))
        rt.defer(("m.py", 2, "fn"), print, member)
        return x + 1

    expected = {}
    for member in (Phase.TRAINING, Level.LOW, Named.ONE):
        fn(torch.zeros(1), member)
        expected[member] = capsys.readouterr().out
    for member in (Phase.TRAINING, Level.LOW):
        torch._dynamo.reset()
        explained = torch._dynamo.explain(fn)(torch.zeros(1), member)
        rt.discard()
        assert explained.graph_break_count == 0, member
        torch.compile(fn, backend=backend)(torch.zeros(1), member)
        assert capsys.readouterr().out == ""  # recorded, not printed yet
        rt.flush()
        assert capsys.readouterr().out == expected[member]
    # a class of its own text: called at once (Dynamo breaks there, as on the original)
    torch._dynamo.reset()
    torch.compile(fn, backend=backend)(torch.zeros(1), Named.ONE)
    _named_calls.append(1)
    rt.flush()
    assert capsys.readouterr().out == expected[Named.ONE]


def test_flush_replays_in_order_and_after_a_raise(capsys):
    def fn(x):
        rt.defer(("m.py", 1, "fn"), print, "first")
        rt.defer(("m.py", 2, "fn"), print, "second")
        rt.guard(x.sum() < 0, ValueError, "negative")
        return x

    # Records pending before a guard: the guard keeps its Python branch (one break), so the
    # records are replayed before the original exception, as the original printed them.
    cfn = torch.compile(fn, backend="eager")
    with pytest.raises(ValueError, match="^negative$"):
        run_at_boundary(cfn, -torch.ones(1))
    assert capsys.readouterr().out == "first\nsecond\n"
    assert torch.equal(run_at_boundary(cfn, torch.ones(1)), torch.ones(1))
    assert capsys.readouterr().out == "first\nsecond\n"
    torch._dynamo.reset()
    assert len(torch._dynamo.explain(fn)(torch.ones(1)).break_reasons) == 1
    rt.discard()


# ---------------------------------------------------------------------------------------------
# [Defer]: logging and warnings keep the original call site.


def logging_fn(x):
    y = x + 1
    rt.defer(("/src/model.py", 42, "forward"), logger.info, "y sum %s, n=%d", y.sum(), 3)
    rt.defer(("/src/model.py", 43, "forward"), logger.debug, "hidden %s", y)
    rt.defer(("/src/model.py", 44, "forward"), logger.log, logging.WARNING, "w %s", "arg")
    return y


@pytest.mark.parametrize("mode", ["eager", "compiled"])
def test_logging_records_carry_the_original_site(caplog, mode):
    caplog.set_level(logging.INFO, logger=logger.name)
    if mode == "eager":
        logging_fn(torch.ones(2))
    else:
        compiled(logging_fn)(torch.ones(2))
        assert caplog.records == []
        rt.flush()
    records = caplog.records
    assert [r.getMessage() for r in records] == ["y sum tensor(4.), n=3", "w arg"]
    assert [r.args for r in records][1] == ("arg",)
    assert [(r.levelname, r.name) for r in records] == [
        ("INFO", logger.name),
        ("WARNING", logger.name),
    ]
    assert [(r.pathname, r.lineno, r.funcName) for r in records] == [
        ("/src/model.py", 42, "forward"),
        ("/src/model.py", 44, "forward"),
    ]
    assert records[0].filename == "model.py" and records[0].module == "model"


def test_logging_level_checked_at_replay(caplog):
    caplog.set_level(logging.WARNING, logger=logger.name)
    compiled(logging_fn)(torch.ones(2))
    rt.flush()
    assert [r.getMessage() for r in caplog.records] == ["w arg"]


def test_warning_once_is_called_as_the_original(caplog, monkeypatch):
    @functools.lru_cache(None)
    def warning_once(self, *args, **kwargs):
        self.warning(*args, **kwargs)

    monkeypatch.setattr(logging.Logger, "warning_once", warning_once, raising=False)
    caplog.set_level(logging.INFO, logger=logger.name)

    def fn(x):
        rt.defer(("/src/m.py", 7, "fn"), logger.warning_once, "once %s", "only")
        return x * 2

    cfn = compiled(fn)
    for _ in range(2):
        cfn(torch.ones(1))
        rt.flush()
    assert [r.getMessage() for r in caplog.records] == ["once only"]
    record = caplog.records[0]
    # The record comes from inside warning_once (it calls self.warning), as in the original.
    assert (record.pathname, record.funcName, record.levelname) == (
        __file__,
        "warning_once",
        "WARNING",
    )


def test_warnings_replayed_with_site():
    def fn(x):
        rt.defer(("/src/w.py", 11, "fn"), warnings.warn, "careful", RuntimeWarning)
        rt.defer(("/src/w.py", 12, "fn"), warnings.warn, "plain")
        return x + 1

    cfn = compiled(fn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cfn(torch.ones(1))
        assert caught == []
        rt.flush()
    assert [(w.category, str(w.message), w.filename, w.lineno) for w in caught] == [
        (RuntimeWarning, "careful", "/src/w.py", 11),
        (UserWarning, "plain", "/src/w.py", 12),
    ]


@contextlib.contextmanager
def loaded_module(name: str, filename: str, loader=None):
    """A module object in sys.modules for the duration, as an import would leave it."""
    module = types.ModuleType(name)
    module.__file__ = filename
    if loader is not None:
        module.__loader__ = loader
    sys.modules[name] = module
    try:
        yield module
    finally:
        del sys.modules[name]


def replay_warning_times(times: int, filename: str):
    """Records and replays warnings.warn("dup") from line 3 of ``filename``, ``times`` times,
    under the "default" filter; returns the warnings shown for that file."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(times):
            rt.state.records.append(((filename, 3, "f"), warnings.warn, ("dup",), {}, ()))
            rt.flush()
    return [w for w in caught if w.filename == filename]


def test_warning_registry_of_the_module_dedupes():
    # "default" action: once per (message, category, line) per module registry.
    with loaded_module("fake_module_for_warnings", "/src/fake_module.py") as module:
        assert len(replay_warning_times(2, "/src/fake_module.py")) == 1
        assert "__warningregistry__" in module.__dict__
        assert module.__dict__["__warningregistry__"]


# ---------------------------------------------------------------------------------------------
# [Trap].


def guarded(x):
    rt.guard(x.sum() < 0, ValueError, "negative")
    return x * 2


def test_guard_eager_is_the_original_raise():
    assert torch.equal(guarded(torch.ones(1)), torch.full((1,), 2.0))
    with pytest.raises(ValueError, match="^negative$"):
        guarded(-torch.ones(1))


def test_guard_compiled_raises_an_encoded_runtime_error_that_translates():
    fn = compiled(guarded)
    assert torch.equal(fn(torch.ones(1)), torch.full((1,), 2.0))
    with pytest.raises(RuntimeError) as info:
        fn(-torch.ones(1))
    original = rt.translate(info.value)
    assert type(original) is ValueError and original.args == ("negative",)


def test_guard_has_no_graph_break():
    explained = torch._dynamo.explain(guarded)(torch.ones(1))
    assert explained.graph_break_count == 0


def test_guard_with_module_class_and_no_message():
    def fn(x):
        rt.guard(x.max() > 1, Rejected, None)
        rt.guard(torch.logical_not(torch.isfinite(x).all()), KeyError, "needs: quoting")
        return x

    with pytest.raises(Rejected) as eager:
        fn(torch.full((1,), 2.0))
    assert eager.value.args == ()
    cfn = compiled(fn)
    with pytest.raises(Rejected) as info:
        run_at_boundary(cfn, torch.full((1,), 2.0))
    assert info.value.args == ()
    with pytest.raises(KeyError) as info:
        run_at_boundary(cfn, torch.tensor([float("nan")]))
    assert info.value.args == ("needs: quoting",)


def test_trap_token_carries_any_message_in_safe_characters():
    message = 'bad ] "value": [x]\nsecond line\x00 \\ é {} %s \ud800'
    token = rt.trap._token(TypeError, message)
    assert re.fullmatch(r"[A-Za-z0-9_]+", token)
    got = rt.translate(RuntimeError(token))
    assert type(got) is TypeError and got.args == (message,)
    got = rt.translate(RuntimeError(rt.trap._token(Rejected, None)))
    assert type(got) is Rejected and got.args == ()


def test_translate_takes_only_a_failed_trap_itself():
    token = rt.trap._token(ValueError, "m")
    assert type(rt.translate(RuntimeError(token))) is ValueError
    assert rt.translate(RuntimeError("plain failure")) is None
    assert rt.translate(ValueError(token)) is None
    # A RuntimeError that quotes a token (a backend's compile error, the program's own) is
    # not a trap's failure; neither is a subclass (Dynamo's and backends' own errors).
    assert rt.translate(RuntimeError("prefix " + token)) is None
    assert rt.translate(RuntimeError(token + "\n")) is None
    assert rt.translate(RuntimeError(token, "second argument")) is None

    class Subclass(RuntimeError):
        pass

    assert rt.translate(Subclass(token)) is None
    # Tokens that do not decode, or name nothing importable.
    assert rt.translate(RuntimeError(rt.TRAP_TOKEN_PREFIX + "zz_n")) is None
    assert rt.translate(RuntimeError(rt.TRAP_TOKEN_PREFIX + "6162_n")) is None  # "ab": no ':'
    assert rt.translate(RuntimeError(rt.TRAP_TOKEN_PREFIX + "c0_mff")) is None  # not UTF-8
    # A class neither traced in this process nor importable by its module's name.
    no_module = rt.TRAP_TOKEN_PREFIX + rt.trap._hex("no.such.module:Cls") + "_m78"
    assert rt.translate(RuntimeError(no_module)) is None


def test_translate_raises_what_the_original_raise_raised():
    """``raise Cls`` whose constructor needs an argument raises TypeError; ``raise`` of a
    non-exception raises TypeError too."""

    class NeedsArgument(Exception):
        def __init__(self, message):
            super().__init__(message)

    def fn(x):
        rt.guard(x.sum() < 0, NeedsArgument, None)
        return x

    with pytest.raises(TypeError, match="missing 1 required positional argument") as eager:
        fn(-torch.ones(1))
    with pytest.raises(TypeError) as info:
        run_at_boundary(compiled(fn), -torch.ones(1))
    assert info.value.args == eager.value.args
    not_an_exception = rt.TRAP_TOKEN_PREFIX + rt.trap._hex("builtins:int") + "_m31"
    got = rt.translate(RuntimeError(not_an_exception))
    assert type(got) is TypeError and got.args == ("exceptions must derive from BaseException",)


def test_translate_finds_a_traced_class_its_module_cannot_import():
    local = type("Local", (Exception,), {"__module__": "no.such.module"})

    def fn(x):
        rt.guard(x.sum() < 0, local, "x")
        return x

    with pytest.raises(local) as info:
        run_at_boundary(compiled(fn), -torch.ones(1))
    assert info.value.args == ("x",)


def test_trap_token_is_a_trace_time_constant():
    """torch.compiler.assume_constant_result: the token is computed once while tracing
    (bytes.hex is not traceable; a per-character loop would slow tracing)."""

    def fn(x):
        rt.guard(x.sum() < 0, ValueError, "y" * 5000)
        return x + 1

    explained = torch._dynamo.explain(fn)(torch.ones(1))
    assert explained.graph_count == 1 and explained.graph_break_count == 0


def test_guard_with_python_bool_or_multi_element_tensor_takes_the_original_path():
    def fn(x, flag):
        rt.guard(flag, ValueError, "flag")
        return x + 1

    cfn = torch.compile(fn, backend="eager")
    with pytest.raises(ValueError, match="flag"):
        cfn(torch.ones(1), True)
    assert torch.equal(cfn(torch.ones(1), False), torch.full((1,), 2.0))
    with pytest.raises(RuntimeError, match="ambiguous"):
        rt.guard(torch.tensor([True, False]), ValueError, "x")


# ---------------------------------------------------------------------------------------------
# [Where].


def test_where_ok():
    a = torch.zeros(2, 3)
    c = torch.tensor(True)
    assert rt.where_ok(c, a, torch.ones(2, 3))
    assert not rt.where_ok(c, a, torch.ones(3))
    assert not rt.where_ok(c, a, torch.ones(2, 3, dtype=torch.float64))
    assert not rt.where_ok(c, a, 1.0)
    assert not rt.where_ok(c, a, torch.ones(2, 3, requires_grad=True))
    with torch.no_grad():
        assert rt.where_ok(c, a, torch.ones(2, 3, requires_grad=True))


def test_record_ok_takes_one_element_bool_conditions_only():
    assert rt.record_ok(torch.tensor(True))
    assert rt.record_ok((torch.tensor([False]), torch.tensor(True)))
    assert not rt.record_ok(torch.tensor([True, False]))  # the original's bool() raises
    assert not rt.record_ok(torch.tensor(1))  # not a bool tensor
    assert not rt.record_ok(True)
    assert not rt.record_ok((torch.tensor(True), torch.tensor([True, True])))


def test_a_format_without_template_hands_on_the_converted_value():
    from graphmend.runtime.records import _apply_formats

    args, kwargs = _apply_formats(
        ((1, None, (0,)), ("n", None, (0,))),
        ("loss %.4f", (torch.tensor(0.25),)),
        {"n": (torch.tensor(3),)},
    )
    assert args == ("loss %.4f", 0.25) and type(args[1]) is float
    assert kwargs == {"n": 3} and type(kwargs["n"]) is int


def test_where_ok_traces_without_break():
    def fn(a, b):
        c = a.sum() > 0
        if rt.where_ok(c, a, b):
            return torch.where(c, a, b)
        return a

    explained = torch._dynamo.explain(fn)(torch.ones(2), torch.zeros(2))
    assert explained.graph_break_count == 0


def test_where_ok_accepts_matching_tensors():
    c = torch.tensor(True)
    assert rt.where_ok(c, torch.ones(2), torch.zeros(2))
    assert rt.where_ok((c, torch.tensor(False)), torch.ones(2), torch.zeros(2), torch.ones(2))
    assert rt.where_ok(torch.tensor([True]), torch.ones(2), torch.zeros(2))


@pytest.mark.parametrize(
    "condition, values",
    [
        (torch.tensor(True), (torch.ones(2), torch.zeros(3))),  # shapes differ
        (torch.tensor(True), (torch.ones(2), torch.zeros(2, dtype=torch.float64))),  # dtypes
        (torch.tensor(True), (torch.ones(2), 0.0)),  # not a tensor
        (torch.tensor(True), (None, torch.ones(2))),
        (torch.tensor([True, False]), (torch.ones(2), torch.zeros(2))),  # bool() would raise
        (torch.tensor(1.0), (torch.ones(2), torch.zeros(2))),  # not a bool condition
        (torch.tensor([[True]]), (torch.ones(2), torch.zeros(2))),  # would broadcast
        ((torch.tensor(True), 1), (torch.ones(2), torch.zeros(2))),
        (torch.tensor(True), ()),
    ],
)
def test_where_ok_rejects(condition, values):
    assert not rt.where_ok(condition, *values)


def test_where_ok_autograd_hazard():
    a = torch.ones(2, requires_grad=True)
    b = torch.zeros(2)
    c = torch.tensor(True)
    assert not rt.where_ok(c, a, b)
    with torch.no_grad():
        assert rt.where_ok(c, a, b)


def test_where_ok_does_not_break():
    def fn(x, y):
        c = x.sum() > 0
        if rt.where_ok(c, x, y):
            return torch.where(c, x, y)
        return x

    for args in ((torch.ones(2), torch.zeros(2)), (torch.ones(2), torch.zeros(3))):
        torch._dynamo.reset()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert torch._dynamo.explain(fn)(*args).graph_break_count == 0


def test_cond_runs_one_branch_eagerly():
    calls = []

    def yes(x):
        calls.append("yes")
        return x + 1

    def no(x):
        calls.append("no")
        return x - 1

    assert torch.equal(rt.cond(torch.tensor(True), yes, no, (torch.ones(1),)), torch.ones(1) * 2)
    assert torch.equal(rt.cond(torch.tensor(0.0), yes, no, (torch.ones(1),)), torch.zeros(1))
    assert calls == ["yes", "no"]


def test_replayed_warning_does_not_read_the_source_each_time():
    # warnings.warn passes no module globals to warn_explicit; with them, CPython asks the
    # module's loader for its source on every call, even when the registry has seen it.
    reads = []

    class Loader:
        def get_source(self, name):
            reads.append(name)
            return "x = 1\n" * 5

    with loaded_module("fake_module_for_source_reads", "/src/fake_reads.py", Loader()):
        assert len(replay_warning_times(3, "/src/fake_reads.py")) == 1
    assert reads == []


def test_eager_warning_uses_the_callers_module_registry():
    namespace = {"__name__": "graphmend_eager_ns", "rt": rt, "warnings": warnings}
    exec(
        "def fn():\n    rt.defer(('/src/e.py', 2, 'fn'), warnings.warn, 'eager once')\n",
        namespace,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        namespace["fn"]()
        namespace["fn"]()
    assert [(str(w.message), w.filename, w.lineno) for w in caught] == [
        ("eager once", "/src/e.py", 2)
    ]
    assert namespace["__warningregistry__"]


def test_logger_adapter_and_module_logging_functions(caplog):
    caplog.set_level(logging.INFO)
    adapter = logging.LoggerAdapter(logger, {"tag": "t"})

    def fn(x):
        rt.defer(("/src/a.py", 5, "fn"), adapter.info, "adapted %s", x.sum())
        rt.defer(("/src/a.py", 6, "fn"), logging.warning, "root %s", "w")
        return x + 1

    compiled(fn)(torch.ones(2))
    rt.flush()
    got = [
        (r.name, r.levelname, r.getMessage(), r.pathname, r.lineno, r.funcName)
        for r in caplog.records
    ]
    assert got == [
        (logger.name, "INFO", "adapted tensor(2.)", "/src/a.py", 5, "fn"),
        ("root", "WARNING", "root w", "/src/a.py", 6, "fn"),
    ]
    assert caplog.records[0].tag == "t"


# ---------------------------------------------------------------------------------------------
# tensors: the run-time check of speculated values.


class Recording(torch.Tensor):
    """A tensor subclass with its own __torch_function__: never speculated on."""

    calls: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs or {})


def test_tensors_is_false_eagerly():
    """Eagerly the original statement runs: nothing is speculated outside a graph."""
    assert not rt.tensors(torch.ones(2))
    assert not rt.tensors()


@pytest.mark.parametrize("other", [1, 1.0, True, None, [1.0], "text"])
def test_tensors_accepts_plain_tensors_and_parameters_only(other):
    parameter = torch.nn.Parameter(torch.ones(2))
    module = torch.nn.Module()
    module.register_buffer("b", torch.zeros(1))

    def f(x, p, b, other):
        if rt.tensors(x, p, b) and rt.tensors() and not rt.tensors(x, other):
            return x + 1
        return x - 1

    compiled = torch.compile(f, backend="eager", fullgraph=True)
    with torch.no_grad():
        assert torch.equal(
            compiled(torch.ones(2), parameter, module.b, other), torch.full((2,), 2.0)
        )


def test_tensors_is_resolved_while_tracing():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    parameter = torch.nn.Parameter(torch.ones(2))

    def f(x, p, n):
        if rt.tensors(x, p) and not rt.tensors(x, n):
            return x * p
        return x - p

    with torch.no_grad():
        out = torch.compile(f, backend=backend, fullgraph=True)(torch.ones(2), parameter, 3)
    assert torch.equal(out, torch.ones(2))
    assert len(graphs) == 1
    ops = [n.target for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert ops == [__import__("operator").mul]  # the checks left nothing in the graph


# The paper's Figure 1, unannotated (a case of the rewrite suite).
FIGURE_1 = (Path(__file__).resolve().parents[1] / "cases/where/checked_figure1.py").read_text()


def _module_from(text, name):
    module = types.ModuleType(name)
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


def test_a_value_that_fails_the_check_runs_the_original_statement():
    """With a subclass input, the mended module calls exactly the torch functions the
    original calls, in the same order: nothing was speculated."""
    import graphmend

    mended_text = graphmend.mend_source(FIGURE_1, filename="figure1.py").source
    assert "__graphmend_rt__.tensors(h)" in mended_text
    original = _module_from(FIGURE_1, "figure1_original").ENTRY
    mended = _module_from(mended_text, "figure1_mended").ENTRY
    for sign in (1.0, -1.0):
        torch.manual_seed(0)
        first = original()
        torch.manual_seed(0)
        second = mended()
        x = (torch.ones(2, 4) * sign * 5).as_subclass(Recording)
        Recording.calls.clear()
        expected = first(x)
        expected_calls = list(Recording.calls)
        Recording.calls.clear()
        got = second(x)
        assert Recording.calls == expected_calls
        assert type(got) is type(expected) and torch.equal(got, expected)
        plain = torch.ones(2, 4) * sign * 5
        assert torch.equal(second(plain), first(plain))


# ---------------------------------------------------------------------------------------------
# item_compare: `X.item() <op> y` (and `float(X)`, `int(X)`) in the graph, exactly as Python
# compares.

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ITEM_DTYPES = [
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
    torch.int8,
    torch.uint8,
    torch.int32,
    torch.int64,
    torch.bool,
]
_OPS = ["<", "<=", ">", ">=", "==", "!="]


def _python_compare(op, a, b):
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]


_READS = {"item": lambda v: v.item(), "float": float, "int": int}


def _one_element(dtype, number, fraction):
    """A one-element tensor of `dtype` holding `fraction` (floating dtypes) or `number`, or
    None where `number` is out of the dtype's range."""
    if dtype.is_floating_point:
        return torch.tensor([fraction]).to(dtype)
    value = torch.tensor([number if dtype != torch.bool else bool(number)]).to(dtype)
    if value.item() != number and dtype != torch.bool:
        return None
    return value


@settings(max_examples=80, deadline=None)
@given(
    dtype=st.sampled_from(_ITEM_DTYPES),
    number=st.integers(-(2**62), 2**62),
    fraction=st.floats(allow_nan=True, width=32),
    other=st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=True), st.booleans()),
    op=st.sampled_from(_OPS),
    read=st.sampled_from(sorted(_READS)),
)
@example(dtype=torch.int32, number=5, fraction=0.0, other=2**40, op="<", read="item")
@example(dtype=torch.int8, number=5, fraction=0.0, other=300, op=">", read="item")
@example(dtype=torch.float32, number=0, fraction=2.0**60, other=2**60 + 1, op="<", read="item")
@example(dtype=torch.int64, number=2**53 + 1, fraction=0.0, other=2**53, op="==", read="float")
@example(dtype=torch.float32, number=0, fraction=2.5, other=2, op="==", read="int")
@example(dtype=torch.float32, number=0, fraction=float("nan"), other=0, op="<", read="int")
def test_item_compare_is_python_comparison(dtype, number, fraction, other, op, read):
    """`X.item() <op> y`, `float(X) <op> y` and `int(X) <op> y`: what Python computes (or
    raises: int() of NaN), eagerly and compiled."""
    value = _one_element(dtype, number, fraction)
    if value is None:
        return  # out of the dtype's range
    try:
        expected = _python_compare(op, _READS[read](value), other)
    except (ValueError, OverflowError) as exc:
        expected = type(exc)

    def f(v):
        return rt.item_compare(v, op, other, read)

    torch._dynamo.reset()
    compiled = torch.compile(f, backend="eager")
    if isinstance(expected, type):
        for run in (f, compiled):
            with pytest.raises(expected):
                run(value)
        return
    assert rt.item_compare(value, op, other, read) == expected  # eagerly: the comparison itself
    got = compiled(value)
    assert bool(got) == expected, (value, op, other, read, got)


# ---------------------------------------------------------------------------------------------
# item_later / item_isinstance / item_now: a held scalar (sema's HeldScalar) compared with an
# int below 2**53 in the graph, tested with isinstance and read in a guard's body, exactly as
# the Python scalar.


_HELD_READS = dict(_READS, bool=bool)


@settings(max_examples=80, deadline=None)
@given(
    dtype=st.sampled_from(_ITEM_DTYPES),
    number=st.integers(-(2**62), 2**62),
    fraction=st.floats(allow_nan=True, width=32),
    other=st.integers(-(10**15) + 1, 10**15 - 1),
    op=st.sampled_from(_OPS),
    read=st.sampled_from(sorted(_HELD_READS)),
)
@example(dtype=torch.float32, number=0, fraction=16777216.0, other=16777217, op="<", read="item")
@example(dtype=torch.int64, number=2**53 + 1, fraction=0.0, other=2**53 - 1, op=">", read="float")
@example(dtype=torch.bool, number=1, fraction=0.0, other=1, op="==", read="item")
@example(dtype=torch.float32, number=0, fraction=float("nan"), other=0, op="!=", read="item")
@example(dtype=torch.float32, number=0, fraction=2.5, other=2, op="==", read="int")
@example(dtype=torch.float32, number=0, fraction=float("nan"), other=1, op="==", read="bool")
@example(dtype=torch.int8, number=-3, fraction=0.0, other=0, op=">", read="bool")
def test_held_scalar_is_the_python_scalar(dtype, number, fraction, other, op, read):
    """A held scalar compared with an int (either side), tested with isinstance and read
    with item_now: what the scalar itself gives, eagerly and compiled (fullgraph where it is
    held)."""
    value = _one_element(dtype, number, fraction)
    if value is None:
        return  # out of the dtype's range
    try:
        scalar = _HELD_READS[read](value)
    except (ValueError, OverflowError) as exc:
        with pytest.raises(type(exc)):
            rt.item_later(value, read)
        return
    expected = (
        _python_compare(op, scalar, other),
        _python_compare(op, other, scalar),
        isinstance(scalar, int),
        isinstance(scalar, float),
        isinstance(scalar, bool),
    )

    def f(v):
        n = rt.item_later(v, read)
        return (
            _python_compare(op, n, other),
            _python_compare(op, other, n),
            rt.item_isinstance(n, int),
            rt.item_isinstance(n, float),
            rt.item_isinstance(n, bool),
        )

    assert f(value) == expected  # eagerly: the scalar itself
    torch._dynamo.reset()
    held = read != "int" or not dtype.is_floating_point
    got = torch.compile(f, backend="eager", fullgraph=held)(value)
    assert tuple(bool(x) for x in got) == expected, (value, op, other, read, got)
    assert rt.item_now(scalar) == scalar or scalar != scalar


def test_held_scalar_is_a_copy_and_reads_now_in_a_guard():
    """A held scalar keeps the value at the read (the tensor changed in place after it), and
    item_now gives the Python scalar where the program needs it."""

    def f(v):
        n = rt.item_later(v)
        v.add_(5)
        return n == 3, rt.item_now(n)

    torch._dynamo.reset()
    equal, scalar = torch.compile(f, backend="eager", fullgraph=False)(torch.tensor(3))
    assert bool(equal) and scalar == 3 and type(scalar) is int


def test_held_scalar_isinstance_errors_are_the_originals():
    held = torch.tensor(3)
    for bad in (3, "int"):
        with pytest.raises(TypeError) as original:
            isinstance(3, bad)
        with pytest.raises(TypeError) as mended:
            rt.item_isinstance(held, bad)
        assert str(mended.value) == str(original.value)


# ---------------------------------------------------------------------------------------------
# defer_format converting values with .item() at the replay.


def test_defer_format_converts_items_at_replay(capsys):
    site = ("f.py", 1, "f")

    def f(x):
        loss = x.mean()
        rt.defer_format(site, print, ((0, "loss {0:.3f} {1}", (0,)),), (loss, 7))
        x.add_(1)  # the recorded value is the snapshot
        return x

    x = torch.tensor([1.0, 2.0])
    rt.defer_format(site, print, ((0, "loss {0:.3f} {1}", (0,)),), (x.mean(), 7))
    assert capsys.readouterr().out == "loss 1.500 7\n"  # eagerly: at once
    torch.compile(f, backend="eager", fullgraph=True)(x)
    assert len(rt.pending()) == 1 and capsys.readouterr().out == ""
    rt.flush()
    assert capsys.readouterr().out == "loss 1.500 7\n"


def test_defer_format_of_a_multi_element_item_raises_at_the_call():
    site = ("f.py", 1, "f")

    def f(x):
        rt.defer_format(site, print, ((0, "{0}", (0,)),), (x,))
        return x

    with pytest.raises(RuntimeError, match="cannot be converted to Scalar|only one element"):
        torch.compile(f, backend="eager")(torch.ones(2))
    assert rt.pending() == []


class _Box:
    """Formats through its own code: never recorded."""

    def __str__(self):
        return "box"


@pytest.mark.parametrize("bounded", [True, False])
def test_a_call_that_cannot_be_recorded_comes_after_the_records_before_it(capsys, bounded):
    from graphmend.boundary import boundary

    site = ("f.py", 1, "f")

    def f(x):
        rt.defer(site, print, "first", x.sum())
        rt.defer(site, print, _Box())
        rt.defer(site, print, "last")
        return x * 2

    compiled = torch.compile(f, backend="eager")
    call = boundary(compiled) if bounded else compiled
    call(torch.ones(2))
    rt.flush()
    assert capsys.readouterr().out == "first tensor(2.)\nbox\nlast\n"


# ---------------------------------------------------------------------------------------------
# [Defer] of a whole branch: contains, defer_branch, defer_when.


@pytest.mark.parametrize(
    "element, container",
    [
        (0, torch.tensor([[1, 0], [2, 3]])),
        (5, torch.tensor([[1, 0], [2, 3]])),
        (float("nan"), torch.tensor([float("nan"), 1.0])),
        (True, torch.tensor([False, True])),
        (1, torch.tensor([False, True])),
        (0.5, torch.tensor([0, 1])),
        (torch.tensor(2), torch.tensor([1, 2])),
        (torch.tensor([1, 9]), torch.tensor([[1, 2], [3, 4]])),
    ],
)
def test_contains_is_tensor_membership(element, container):
    assert rt.contains(element, container) == (element in container)
    assert rt.not_contains(element, container) == (element not in container)

    def traced(c):
        return rt.contains(element, c), rt.not_contains(element, c)

    inside, outside = compiled(traced)(container)
    assert bool(inside) == (element in container) and bool(outside) == (element not in container)


def test_contains_of_other_containers_is_python_membership():
    assert rt.contains(2, [1, 2]) is True and rt.not_contains(2, (1, 3)) is True
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        rt.contains("a", torch.tensor([1]))

    def traced(x):
        return x + 1, rt.contains(2, [1, 2])

    assert compiled(traced)(torch.ones(1))[1] is True


def padding_warning(ids, pad, bos):
    ids = ids * 1
    if rt.defer_branch(c := rt.contains(pad, ids[:, [-1, 0]]), lambda: (pad, bos)) or c:
        message = "padded"
        if bos == pad:
            message += f" (pad {pad} is bos)"
        rt.defer_when(c, ("model.py", 5, "padding_warning"), logger.warning, message)
    return ids.sum()


@pytest.mark.parametrize("ids, records", [([[1, 0]], 1), ([[1, 2]], 0)])
def test_deferred_branch_replays_only_if_its_condition_held(caplog, ids, records):
    caplog.set_level(logging.WARNING, logger=logger.name)
    padding_warning(torch.tensor(ids), 0, 0)
    eager = [(r.lineno, r.getMessage()) for r in caplog.records]
    assert len(eager) == records
    caplog.clear()
    run_at_boundary(compiled(padding_warning), torch.tensor(ids), 0, 0)
    assert [(r.lineno, r.getMessage()) for r in caplog.records] == eager
    assert eager == [] or eager == [(5, "padded (pad 0 is bos)")]


def test_deferred_branch_has_no_graph_break():
    explained = torch._dynamo.explain(padding_warning)(torch.tensor([[1, 0]]), 0, 0)
    assert explained.graph_break_count == 0 and explained.graph_count == 1


def test_deferred_branch_keeps_the_branch_for_values_that_are_not_static(caplog):
    caplog.set_level(logging.WARNING, logger=logger.name)
    pad = torch.tensor(0)  # a tensor read by the body: formatting it is not static
    explained = torch._dynamo.explain(padding_warning)(torch.tensor([[1, 0]]), pad, 0)
    assert explained.graph_break_count >= 1
    rt.discard()
    caplog.clear()
    padding_warning(torch.tensor([[1, 0]]), pad, 0)
    eager = [r.getMessage() for r in caplog.records]
    caplog.clear()
    run_at_boundary(torch.compile(padding_warning, backend="eager"), torch.tensor([[1, 0]]), pad, 0)
    assert [r.getMessage() for r in caplog.records] == eager == ["padded (pad 0 is bos)"]


def test_defer_branch_is_false_eagerly_and_for_conditions_of_many_elements():
    assert rt.defer_branch(torch.tensor(True), lambda: ()) is False

    def traced(x):
        return (
            x + 1,
            rt.defer_branch(x > 0, lambda: ()),
            rt.defer_branch(x.sum() > 0, lambda: (1, "a")),
        )

    _, many, one = compiled(traced)(torch.ones(2))
    assert many is False and one is True


def test_defer_branch_is_false_when_reading_raises():
    class Config:
        pad = None

    def traced(x):
        return x + 1, rt.defer_branch(x.sum() > 0, lambda: (Config.pad.missing,))

    assert torch.compile(traced, backend="eager")(torch.ones(2))[1] is False


# masked_fill_ok / masked_index_ok: the check before an in-place masked update.


@pytest.fixture
def compiling(monkeypatch):
    """The checks' conditions as they are read while Dynamo traces, without Dynamo."""
    monkeypatch.setattr(rt.predicate, "is_compiling", lambda: True)


def test_masked_checks_are_false_eagerly():
    mask = torch.tensor([True, False])
    with torch.no_grad():
        assert not rt.masked_fill_ok(mask, 0.0, torch.zeros(2))
        assert not rt.masked_index_ok(mask, 0.0, torch.zeros(2))


def test_masked_checks_accept(compiling):
    with torch.no_grad():
        assert rt.masked_fill_ok(torch.ones(4, 1, dtype=torch.bool), 0.0, torch.zeros(2, 4, 3))
        assert rt.masked_fill_ok(torch.ones(3, dtype=torch.bool), float("-inf"), torch.zeros(2, 3))
        assert rt.masked_index_ok(
            torch.ones(2, 3, dtype=torch.bool), float("-inf"), torch.zeros(3, 3, 2), slice(1, None)
        )
        assert rt.masked_index_ok(torch.ones(3, dtype=torch.bool), 1, torch.zeros(3, 2))
        assert rt.masked_fill_ok(torch.ones(3, dtype=torch.bool), 6e4, torch.zeros(3).half())
        assert rt.masked_fill_ok(torch.ones(3, dtype=torch.bool), True, torch.zeros(3))


@pytest.mark.parametrize(
    "mask, value, target, slices",
    [
        (torch.ones(3, dtype=torch.long), 0.0, torch.zeros(3), ()),  # not a bool mask
        (torch.ones(3, dtype=torch.uint8), 0.0, torch.zeros(3), ()),
        (torch.ones(3, dtype=torch.bool), 0.0, torch.zeros(3, dtype=torch.long), ()),  # integer
        (torch.ones(3, dtype=torch.bool), torch.tensor(0.0), torch.zeros(3), ()),  # a tensor value
        (torch.ones(3, dtype=torch.bool), 1e6, torch.zeros(3).half(), ()),  # out of range
        (torch.ones(3, dtype=torch.bool), 10**40, torch.zeros(3), ()),
        (torch.ones(2, 3, dtype=torch.bool), 0.0, torch.zeros(3), ()),  # would grow the target
        (torch.ones(2, dtype=torch.bool), 0.0, torch.zeros(3), ()),  # does not broadcast
        (torch.ones(3, dtype=torch.bool), 0.0, torch.tensor(1.0), (slice(1, None),)),  # 0-d slice
        (torch.ones(3, dtype=torch.bool), 0.0, torch.nn.Parameter(torch.zeros(3)), ()),
        (torch.ones(3, dtype=torch.bool), 0.0, [0.0, 0.0, 0.0], ()),
    ],
)
def test_masked_fill_ok_rejects(compiling, mask, value, target, slices):
    with torch.no_grad():
        assert not rt.masked_fill_ok(mask, value, target, *slices)


def test_masked_index_ok_needs_the_leading_shape(compiling):
    with torch.no_grad():
        assert not rt.masked_index_ok(torch.ones(3, dtype=torch.bool), 0.0, torch.zeros(1, 3))
        assert not rt.masked_index_ok(torch.ones(1, 3, dtype=torch.bool), 0.0, torch.zeros(2, 3))
        assert not rt.masked_index_ok(
            torch.ones(2, dtype=torch.bool), 0.0, torch.zeros(3, 2), slice(2, None)
        )
        assert rt.masked_index_ok(
            torch.ones(2, dtype=torch.bool), 0.0, torch.zeros(3, 2), slice(1, None)
        )


def test_masked_checks_need_grad_mode_off(compiling):
    mask, target = torch.ones(3, dtype=torch.bool), torch.zeros(3)
    assert not rt.masked_fill_ok(mask, 0.0, target)
    assert not rt.masked_index_ok(mask, 0.0, target)
    with torch.inference_mode():
        assert rt.masked_fill_ok(mask, 0.0, target)


def test_masked_fill_ok_traces_without_break():
    def fn(x, t):
        y = x * 2
        mask = t > 0
        if rt.masked_fill_ok(mask, 0.0, y):
            y.masked_fill_(mask, 0.0)
        elif mask.any():
            y.masked_fill_(mask, 0.0)
        return y

    for t in (torch.tensor([1.0, -1.0]), torch.tensor([-1.0, -1.0])):
        torch._dynamo.reset()
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            explained = torch._dynamo.explain(fn)(torch.ones(2), t)
            assert explained.graph_count == 1 and explained.graph_break_count == 0
            compiled = torch.compile(fn, backend="eager")
            assert torch.equal(compiled(torch.ones(2), t), fn(torch.ones(2), t))
    torch._dynamo.reset()


def test_python_ints_hold_for_ints_only_while_compiling():
    """`top_k: Optional[int]` assumed an int: a float, a bool or None is not one, and eagerly
    the original statement runs."""

    def probe(x, value):
        return x + 1, rt.python_ints(value, 3)

    compiled = torch.compile(probe, backend="eager", dynamic=False)
    assert probe(torch.ones(1), 2)[1] is False
    for value, expected in ((2, True), (2.5, False), (True, False), (None, False)):
        torch._dynamo.reset()
        assert compiled(torch.ones(1), value)[1] is expected, value


def test_dynamo_inlines_the_runtime_and_runs_its_own_frames_as_written():
    """Called from traced code, a helper is inlined (no break); as a frame of its own (called
    from a frame Dynamo runs eagerly) it is not compiled into a graph of its own."""
    import importlib

    from torch._dynamo import trace_rules

    helpers = importlib.import_module("graphmend.runtime.defer").__file__
    assert not trace_rules.check_file(helpers, is_inlined_call=True).skipped
    assert trace_rules.check_file(helpers, is_inlined_call=False).skipped


def test_static_range_ok_holds_for_short_int_ranges_while_compiling():
    def answers(x):
        return x + 1, [
            rt.static_range_ok(1, 4),
            rt.static_range_ok(0, 10, 2),
            rt.static_range_ok(0, 1 << 17),  # too long to build in Python
            rt.static_range_ok(0, 2.0),  # arange reads floats
            rt.static_range_ok(True, 3),  # a bool is not an exact int
        ]

    assert rt.static_range_ok(1, 4) is False  # eagerly the original reads the tensor
    _, while_compiling = compiled(answers)(torch.zeros(1))
    assert while_compiling == [True, True, False, False, False]
