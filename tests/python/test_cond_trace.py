"""torch.cond over branches Dynamo cannot trace (torch 2.13), and the mended site's fallback.

What Dynamo does: a torch.cond branch it cannot trace whole fails the compile with
UncapturedHigherOrderOpError (no graph break, no fallback to eager), under the eager backend
and Inductor alike, before running any of the frame's code. What the runtime does with it:
the mended site is switched off and the frame converted again, taking the original
statement, so the call runs once, under every way of compiling mended code."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
import torch
from torch._dynamo.exc import UncapturedHigherOrderOpError

import graphmend
from behaviour import fresh_dynamo, mended_text_module  # noqa: F401 (fixture)
from case_files import load, path_of

CALLS: list = []
CLOSED = torch.zeros(3)


def _breaks_in_helper(x):
    torch._dynamo.graph_break()
    return x + 1


UNTRACEABLE = {
    "print": lambda x: (print("branch"), x + 1)[1],
    "item": lambda x: x * x.sum().item(),
    "clamp_by_0d_tensor": lambda x: torch.clamp(x, 0, x.sum()),
    "inplace_on_operand": lambda x: x.add_(1).clone(),
    "inplace_on_closed_over": lambda x: (CLOSED.add_(1), x + 1)[1],
    "data_dependent_shape": lambda x: x[x > 0],
    "graph_break_in_helper": _breaks_in_helper,
    "returns_operand": lambda x: x,
    "returns_view_of_operand": lambda x: x.view(3),
    "python_side_effect": lambda x: (CALLS.append("branch"), x + 1)[1],
}


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@pytest.mark.parametrize("kind", sorted(UNTRACEABLE))
def test_untraceable_branch_fails_the_compile_before_running_code(kind, backend):
    def program(x):
        CALLS.append("frame")
        return torch.cond(x.sum() > 0, UNTRACEABLE[kind], lambda x: x - 1, (x,))

    CALLS.clear()
    CLOSED.zero_()
    x = torch.ones(3)
    with pytest.raises(UncapturedHigherOrderOpError):
        torch.compile(program, backend=backend)(x)
    assert CALLS == [] and x.tolist() == [1.0] * 3 and CLOSED.tolist() == [0.0] * 3


CASE = "cond/untraceable_branch_runs_original"


def _observe(function, args):
    """What a call of ``function`` returns and prints, and the random state after it."""
    torch.manual_seed(0)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        value = function(*args)
        graphmend.runtime.flush()
    return value, printed.getvalue(), torch.random.get_rng_state()


def _compiled_ways(module):
    """The case compiled as users compile mended code: graphmend.compile, plain torch.compile
    of graphmend.mend's object, and plain torch.compile of the file as the import hook mends
    it."""
    text = mended_text_module(path_of(CASE), module.__name__ + "_text")
    return {
        "graphmend.compile": graphmend.compile(module.ENTRY, backend="eager"),
        "torch.compile(graphmend.mend)": torch.compile(
            graphmend.mend(module.ENTRY), backend="eager"
        ),
        "torch.compile(hook text)": torch.compile(text.ENTRY, backend="eager"),
    }


def test_untraceable_site_runs_the_original_once_however_compiled():
    module = load(CASE)
    graphmend.runtime.state.untraceable_conds.clear()
    for how, compiled in _compiled_ways(module).items():
        for args in module.INPUTS:
            expected_value, expected_text, expected_rng = _observe(module.ENTRY, args)
            value, text, rng = _observe(compiled, args)
            assert torch.equal(value, expected_value), how
            assert text == expected_text == "drawing noise\n", how
            assert torch.equal(rng, expected_rng), how
    sites = {site[1:] for site in graphmend.runtime.state.untraceable_conds}
    assert sites == {("ENTRY", "__gm_true_0")}
    assert {Path(site[0]).name for site in graphmend.runtime.state.untraceable_conds} == {
        path_of(CASE).name
    }


def test_error_of_a_torch_cond_not_mended_still_raises():
    """The user's own torch.cond that Dynamo cannot trace fails the compile as it did: no
    mended site is switched off for it."""

    def program(x):
        return torch.cond(x.sum() > 0, UNTRACEABLE["item"], lambda x: x - 1, (x,))

    before = set(graphmend.runtime.state.untraceable_conds)
    with pytest.raises(UncapturedHigherOrderOpError):
        torch.compile(program, backend="eager")(torch.ones(3))
    assert graphmend.runtime.state.untraceable_conds == before


def test_traceable_site_stays_on():
    """A mended torch.cond that Dynamo traces keeps its one graph: nothing is switched off."""
    module = load("cond/early_return_call")
    before = set(graphmend.runtime.state.untraceable_conds)
    compiled = graphmend.compile(module.ENTRY, backend="eager")
    for args in module.INPUTS:
        assert torch.equal(compiled(*args), module.ENTRY(*args))
    assert graphmend.runtime.state.untraceable_conds == before


def test_a_mended_site_whose_trace_fails_otherwise_is_switched_off_too():
    """Branches whose outputs differ in dtype fail torch.cond's trace with TorchRuntimeError,
    not UncapturedHigherOrderOpError: raised through runtime.cond, it switches the site off
    as well, and the original statement runs."""
    module = load("where/decline_dtype_name_shadowed")
    graphmend.runtime.state.untraceable_conds.clear()
    compiled = graphmend.compile(module.ENTRY(), backend="eager")
    for args in module.INPUTS:
        expected = module.ENTRY()(*args)
        value = compiled(*args)
        assert value.dtype == expected.dtype and torch.equal(value, expected)
    assert {site[1] for site in graphmend.runtime.state.untraceable_conds} == {"forward"}


def test_a_failing_torch_cond_not_mended_still_raises_its_error():
    """The user's own torch.cond whose branches differ in dtype fails the compile as it did:
    the error does not pass through runtime.cond, so no site is switched off for it."""

    def program(x):
        return torch.cond(x.sum() > 0, lambda x: x.double(), lambda x: x - 1, (x,))

    before = set(graphmend.runtime.state.untraceable_conds)
    with pytest.raises(Exception, match="dtype"):
        torch.compile(program, backend="eager")(torch.ones(3))
    assert graphmend.runtime.state.untraceable_conds == before
