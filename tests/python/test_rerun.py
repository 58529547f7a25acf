"""runtime.rerun_if: a failed in-graph guard runs the call again eagerly, which must be
exactly the original's run: the same exception and message, the same output before it, the
same random numbers (Inductor draws its seeds when the graph starts, before the guard), and
no second run of anything the first changed. A module with hooks, and a guard after a
change of state, keep the original `if` (a graph break)."""

from __future__ import annotations

import io
import contextlib

import pytest

torch = pytest.importorskip("torch")

import graphmend  # noqa: E402
import graphmend.runtime as rt  # noqa: E402
from behaviour import program_module  # noqa: E402

PROGRAM = """
import torch
from torch import nn


def noisy_check(x):
    noise = torch.rand_like(x)
    y = x + noise
    if (y > 10).any():
        print("about to raise")
        raise ValueError(f"too large: {y}")
    return y * torch.rand_like(x)


class Checked(nn.Module):
    def forward(self, x):
        if (x < 0).any():
            raise ValueError(f"negative: {x}")
        return x.sqrt()
"""


@pytest.fixture()
def program(tmp_path):
    with program_module(tmp_path, "rerun_program", PROGRAM) as module:
        yield module


def outcome(call, *args):
    """What call(*args) returns or raises, what it prints, and the random state after it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = ("returned", call(*args).tolist())
        except ValueError as exc:
            result = ("raised", str(exc), exc.__context__ is None, exc.__cause__ is None)
    return result, out.getvalue(), torch.get_rng_state()


def same(a, b):
    return a[0] == b[0] and a[1] == b[1] and torch.equal(a[2], b[2])


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
@pytest.mark.parametrize("first_trace", [True, False])
def test_a_rerun_draws_the_original_random_numbers(program, backend, first_trace):
    if first_trace:  # the guard is traced during the failing call itself
        rt.state.rerun_guards, rt.state.traced_random_state = False, None
    compiled = graphmend.compile(program.noisy_check, backend=backend)
    if not first_trace:
        torch.manual_seed(1)
        compiled(torch.zeros(3))  # traced here; the next calls keep their random state
    # Inductor's random numbers are not eager's (plain torch.compile too): its returned values
    # are compared only with the eager backend; a rerun is eager, with the call's state.
    inputs = [torch.full((3,), 9.5)] + ([torch.zeros(3)] if backend == "eager" else [])
    for x in inputs + [torch.full((3,), 9.5)]:
        torch.manual_seed(0)
        expected = outcome(program.noisy_check, x)
        torch.manual_seed(0)
        actual = outcome(compiled, x)
        assert same(actual, expected), (actual[:2], expected[:2])
    assert expected[0][0] == "raised" and expected[1] == "about to raise\n"


def test_the_guard_costs_no_graph_break(program):
    for x in (torch.ones(2), torch.tensor([1.0, -1.0])):
        explained = graphmend.explain(graphmend.mend(program.noisy_check), x)
        assert (explained.graph_count, explained.breaks) == (1, [])


def test_a_module_without_hooks_reruns(program):
    compiled = graphmend.compile(program.Checked(), backend="eager")
    expected = outcome(program.Checked(), torch.tensor([1.0, -1.0]))
    assert same(outcome(compiled, torch.tensor([1.0, -1.0])), expected)


def test_a_module_with_hooks_keeps_the_original_if(program):
    calls = []
    module = program.Checked()
    module.register_forward_pre_hook(lambda mod, args: calls.append(1))
    compiled = graphmend.compile(module, backend="eager")
    for x in (torch.tensor([1.0, 4.0]), torch.tensor([1.0, -1.0])):
        calls.clear()
        result = outcome(compiled, x)
        assert calls == [1], "the hook ran once"
        assert same(result, outcome(program.Checked(), x))


def test_a_rerun_token_is_no_trap_token():
    assert rt.translate(RuntimeError(rt.RERUN_TOKEN)) is None
    assert rt.is_rerun(RuntimeError(rt.RERUN_TOKEN))
    assert not rt.is_rerun(ValueError(rt.RERUN_TOKEN))
    assert not rt.is_rerun(RuntimeError(rt.RERUN_TOKEN + "x"))
