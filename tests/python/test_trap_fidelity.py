"""Exception fidelity of [Trap] under Inductor, graphmend.compile's default backend.

A compiled trap is an in-graph assert whose failure the compile boundary turns back into
the program's own exception. These tests hold that contract (docs/MENDER.md, "Exceptions"):

* a valid input returns what the original returns, whatever the message holds (quotes,
  backslashes, newlines, NUL, non-ASCII, ``{}``, ``%``, thousands of characters): the
  message never reaches a backend's generated code as text;
* an invalid input raises the original's exception class with the original's message, and
  so does a second call, and a valid call after it still returns;
* a failure while compiling (a backend that raises, even with a trap token in its text) is
  shown as that failure, never as a user exception;
* a tensor ``assert`` raises AssertionError with its message, as eagerly, and ``python -O``
  still removes it;
* deferred prints and log records with the same kinds of text print and log the original's.
"""

from __future__ import annotations

import importlib.util
import itertools
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.inductor

import graphmend  # noqa: E402
import graphmend.runtime as rt  # noqa: E402

PROGRAM = '''\
import torch


class UserError(Exception):
    pass


class WithInit(ValueError):
    """Builds its own text from the message, as many libraries' errors do."""

    def __init__(self, message):
        super().__init__(f"<{{message}}>")
        self.message = message


def forward(x: torch.Tensor):
    h = x * 2
    if (h < 0).any():
        raise {cls}({message})
    return h + 1
'''

CLASSES = ["ValueError", "RuntimeError", "AssertionError", "KeyError", "UserError", "WithInit"]
_DIR = Path(tempfile.mkdtemp(prefix="graphmend-trap-fidelity-"))
_NAMES = itertools.count()


def load_program(cls: str, message: str | None):
    """The program as a module of its own (graphmend.compile reads functions' files)."""
    name = f"trap_fidelity_{next(_NAMES)}"
    path = _DIR / f"{name}.py"
    path.write_text(
        PROGRAM.format(cls=cls, message="" if message is None else repr(message)),
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outcome(fn, x):
    try:
        return ("returned", fn(x))
    except Exception as exc:  # the program's own exception is its behaviour
        return ("raised", type(exc).__qualname__, exc.args, str(exc))


def same(a, b):
    if a[0] == "returned" and b[0] == "returned":
        return torch.equal(a[1], b[1])
    return a == b


VALID, INVALID = torch.tensor([1.0, 2.0]), torch.tensor([1.0, -2.0])

messages = st.one_of(
    st.none(),
    st.text(
        alphabet=st.one_of(
            st.sampled_from(list("\"'\\\n\r\t\x00{}%]:[_") + ["é", "中", "\U0001f600", "\ud800"]),
            st.characters(),
        ),
        max_size=40,
    ),
    st.integers(min_value=1000, max_value=5000).map(lambda n: ('"\\\n' * n)[:n]),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cls=st.sampled_from(CLASSES), message=messages)
@example(cls="ValueError", message='bad "input"')  # the report: broke Inductor's C++
@example(cls="ValueError", message="line1\nline2")
@example(cls="WithInit", message=None)  # raise WithInit: its __init__ raises TypeError
@example(cls="UserError", message="\x00\\b{}%s")
def test_a_trap_under_inductor_behaves_as_the_original(cls, message):
    torch._dynamo.reset()
    program = load_program(cls, message)
    compiled = graphmend.compile(program.forward)
    report = compiled.__graphmend_report__
    assert [(d.code, d.fixed) for d in report.diagnostics] == [("GM105", True)]
    for x in (VALID, INVALID, INVALID, VALID):  # again after a failure, then valid again
        expected, actual = outcome(program.forward, x), outcome(compiled, x)
        assert same(expected, actual), (expected, actual)


def test_a_backend_that_fails_is_shown_as_its_own_failure():
    """Even a compile error whose text is exactly a trap token is not a trap's failure."""
    program = load_program("ValueError", "bad")
    token = rt.trap._token(ValueError, "bad")
    for text in (token, f"cannot compile: {token}"):

        def failing_backend(gm, example_inputs, text=text):
            raise RuntimeError(text)

        torch._dynamo.reset()
        compiled = graphmend.compile(program.forward, backend=failing_backend)
        for x in (VALID, INVALID):
            with pytest.raises(torch._dynamo.exc.BackendCompilerFailed):
                compiled(x)


def test_a_program_runtime_error_that_quotes_a_token_is_its_own():
    program = load_program("RuntimeError", rt.trap._token(ValueError, "bad"))
    compiled = graphmend.compile(program.forward)
    expected, actual = outcome(program.forward, INVALID), outcome(compiled, INVALID)
    assert expected == actual and expected[1] == "RuntimeError"


ASSERTING = """\
import torch


def forward(x: torch.Tensor):
    h = x * 2
    assert (h > 0).all(), {message!r}
    assert h.sum() < 100
    return h + 1
"""


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_a_tensor_assert_raises_assertion_error_when_compiled(backend):
    path = _DIR / f"asserting_{backend}.py"
    path.write_text(ASSERTING.format(message='not "positive"\n'), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    torch._dynamo.reset()
    compiled = graphmend.compile(program.forward, backend=backend)
    for x in (VALID, INVALID, torch.tensor([60.0]), VALID):
        expected, actual = outcome(program.forward, x), outcome(compiled, x)
        assert same(expected, actual), (expected, actual)
    assert outcome(compiled, INVALID)[:3] == ("raised", "AssertionError", ('not "positive"\n',))
    assert outcome(compiled, torch.tensor([60.0]))[:3] == ("raised", "AssertionError", ())


class _Accumulator(torch.nn.Module):
    """A running total kept in a buffer and a step count kept in a Python attribute, both
    updated before the guard (as metrics and EMA modules do): when the guard fails, the
    original leaves both updated."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(2))
        self.steps = 0

    def forward(self, x: torch.Tensor, count: bool):
        if count:
            self.steps += 1
        else:
            self.total.add_(x)
        if not torch.isfinite(self.total + x).all():
            raise ValueError("non-finite total")
        return self.total * 2


@pytest.mark.parametrize("count", [False, True])
@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_a_failed_guard_keeps_the_state_changed_before_it(backend, count):
    """A failed in-graph assert would abort the graph and lose what it changed before the
    guard (Inductor writes mutated buffers back at the end; Dynamo sets attributes after the
    graph), so the guard breaks the graph there instead. (With nothing changed before it the
    guard stays in the graph: the trap cases, EXPECTED_BREAKS.)"""
    bad = torch.tensor([1.0, float("inf")])
    original = _Accumulator()
    with pytest.raises(ValueError, match="non-finite total"):
        original(bad, count)
    torch._dynamo.reset()
    model = _Accumulator()
    compiled = graphmend.compile(model, backend=backend)
    with pytest.raises(ValueError, match="non-finite total"):
        compiled(bad, count)
    assert model.total.tolist() == original.total.tolist() and model.steps == original.steps


def test_a_mended_tensor_assert_is_removed_by_python_O():
    program = _DIR / "optimized_program.py"
    program.write_text(
        "import torch\n\n\ndef forward(x: torch.Tensor):\n"
        "    assert (x > 0).all(), 'positive'\n    return x + 1\n",
        encoding="utf-8",
    )
    script = textwrap.dedent(
        f"""
        import importlib.util, torch, graphmend
        spec = importlib.util.spec_from_file_location("optimized_program", {str(program)!r})
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        mended, report = graphmend.mend(module.forward, report=True)
        assert [(d.code, d.fixed) for d in report.diagnostics] == [("GM110", True)], report
        print(mended(-torch.ones(1)).tolist())
        """
    )
    run = subprocess.run(
        [sys.executable, "-O", "-c", script], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[0.0]"


def test_every_in_graph_assert_carries_a_safe_token():
    """No ``_assert_async`` without a message (aot_eager and Inductor then check nothing),
    and no user text in one: guard, check_assert and check_tensor_all alike."""
    graphs = []

    def counting(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def fn(x):
        rt.guard((x < 0).any(), ValueError, 'a "quoted"\nmessage')
        rt.guard((x > 9).any(), KeyError)
        assert rt.check_assert((x != 3).all(), "no threes")
        assert rt.check_assert((x != 4).all())
        rt.check_tensor_all(x != 5)
        return x + 1

    torch._dynamo.reset()
    torch.compile(fn, backend=counting, fullgraph=True)(torch.ones(2))
    asserts = [
        node
        for gm in graphs
        for node in gm.graph.nodes
        if node.op == "call_function"
        and node.target in (torch._assert_async, torch.ops.aten._assert_async.msg)
    ]
    assert len(asserts) == 5
    for node in asserts:
        message = node.args[1] if len(node.args) > 1 else node.kwargs.get("assert_msg")
        assert isinstance(message, str) and re.fullmatch(r"[A-Za-z0-9_]+", message), node


PRINTING = """\
import logging

import torch

logger = logging.getLogger("trap_fidelity")


def forward(x: torch.Tensor):
    h = x * 2
    print({message}, h.sum())
    logger.warning("%s %s", {message}, h.max())
    return h + 1
"""


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message=messages.filter(lambda m: m is not None))
@example(message='bad "input"\n\x00{}%s\\')
def test_deferred_text_never_reaches_generated_code(message):
    """[Defer] keeps user text in Python records, replayed after the compiled region: under
    Inductor the printed and logged text is the original's, whatever it holds."""
    import contextlib
    import io
    import logging

    path = _DIR / f"printing_{next(_NAMES)}.py"
    path.write_text(PRINTING.format(message=repr(message)), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    torch._dynamo.reset()
    compiled = graphmend.compile(program.forward)
    assert {d.code for d in compiled.__graphmend_report__.fixed} == {"GM102", "GM103"}

    def run(fn):
        records = []
        handler = logging.Handler()
        handler.emit = lambda record: records.append(record.getMessage())
        program.logger.addHandler(handler)
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                result = fn(VALID)
        finally:
            program.logger.removeHandler(handler)
        return result, out.getvalue(), records

    expected, actual = run(program.forward), run(compiled)
    assert torch.equal(expected[0], actual[0])
    assert expected[1:] == actual[1:]
