"""warnings.warn with a stacklevel, deferred: the replayed warning names the frame Python
names for the original call, for every level from the warning's own line to past the
compiled function and past the top of the stack, eagerly, compiled with the eager backend
and with Inductor behind graphmend.compile, and with plain torch.compile of the mended
function (no boundary: a level past the compiled frame is made at once, a graph break).
A helper of a deferred branch that is not the mended function at run time runs only when
the condition holds."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

import graphmend  # noqa: E402
import graphmend.runtime as rt  # noqa: E402
from behaviour import program_module  # noqa: E402

PROGRAM = """
import warnings


def leaf(x, level):
    warnings.warn("from the leaf", UserWarning, stacklevel=level)
    return x + 1


def middle(x, level):
    y = leaf(x, level)
    return y * 2


def top(x, level):
    z = middle(x, level)
    return z - 1


def rank_zero_warn(message, category=UserWarning, stacklevel=2):
    warnings.warn(message, category, stacklevel=stacklevel + 1)


def branch(x):
    if (x < 0).any():
        rank_zero_warn("negative", UserWarning)
    return x.abs()
"""


@pytest.fixture()
def program(tmp_path):
    with program_module(tmp_path, "levels_program", PROGRAM) as module:
        yield module


def caught(call, *args):
    """The warnings `call(*args)` issues, as (message, file name, line), made from one line
    so that a level past the callee names the same frame for every callee."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call(*args)
    return [
        (str(w.message), w.filename.rsplit("/", 1)[-1], w.lineno)
        for w in seen
        if "levels_program" in w.filename
        or "test_warning_levels" in w.filename
        or w.filename == "sys"
    ]


@pytest.mark.parametrize("level", [1, 2, 3, 4, 5, 60])
def test_each_level_names_the_original_frame(program, level):
    x = torch.tensor([1.0, 2.0])
    callees = [
        program.top,
        graphmend.mend(program.top),
        graphmend.compile(program.top, backend="eager"),
    ]
    expected, *mended = [caught(callee, x, level) for callee in callees]  # one line: one frame
    assert len(expected) == 1
    assert mended == [expected, expected]


@pytest.mark.inductor
@pytest.mark.parametrize("level", [2, 4])
def test_each_level_with_inductor(program, level):
    x = torch.tensor([1.0, 2.0])
    callees = [program.top, graphmend.compile(program.top)]
    expected, compiled = [caught(callee, x, level) for callee in callees]
    assert compiled == expected


@pytest.mark.parametrize("level", [2, 3])
def test_levels_inside_the_graph_break_nothing(program, level):
    mended = graphmend.mend(program.top)
    explained = torch._dynamo.explain(mended)(torch.tensor([1.0]), level)
    rt.discard()
    assert explained.graph_break_count == 0


@pytest.mark.parametrize("level", [1, 2, 3])
def test_without_a_boundary_a_level_past_the_compiled_frame_is_made_at_once(program, level):
    x = torch.tensor([1.0, 2.0])
    compiled = torch.compile(graphmend.mend(program.top), backend="eager")

    def call(*args):
        try:
            return compiled(*args)
        finally:
            rt.flush()

    # Past the callee, the original names `caught`'s line; the mended one, behind `call`, the
    # same line of `call` (levels 4 and 5 are not compared: the wrapper is a frame of its own).
    expected, actual = [caught(callee, x, level) for callee in (program.top, call)]
    assert actual == expected


@pytest.mark.parametrize("values", [[1.0, 2.0], [-1.0, 2.0]])
def test_a_deferred_branch_helper_keeps_the_condition(program, values):
    x = torch.tensor(values)
    callees = [program.branch, graphmend.compile(program.branch, backend="eager")]
    expected, compiled = [caught(callee, x) for callee in callees]
    assert compiled == expected
    assert len(expected) == (1 if values[0] < 0 else 0)


@pytest.mark.parametrize("values", [[1.0, 2.0], [-1.0, 2.0]])
def test_a_rebound_helper_runs_only_when_the_condition_holds(program, values):
    x = torch.tensor(values)
    expected = caught(program.branch, x)
    mended = graphmend.mend(program.branch)
    # The mended branch reaches the helper through a closure cell: rebind it to the original
    # function, which warns at once and is not the mended helper the check expects.
    cells = dict(zip(mended.__code__.co_freevars, mended.__closure__ or ()))
    assert "rank_zero_warn" in cells
    cells["rank_zero_warn"].cell_contents = program.rank_zero_warn
    compiled = torch.compile(mended, backend="eager")

    def call(*args):
        try:
            return compiled(*args)
        finally:
            rt.flush()

    assert [m for m, _, _ in caught(call, x)] == [m for m, _, _ in expected]
