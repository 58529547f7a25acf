"""[Where] rewrite (torch.where and torch.cond), end to end through graphmend._core.mend_source.

Programs live in tests/golden/mend/where_*.py. Each fixed program defines ENTRY (a function,
or an nn.Module class built after torch.manual_seed(0)), INPUTS (argument tuples that drive
every branch), BREAKS = (original, mended) graph_break_count on INPUTS[0], REWRITE ("where"
or "cond") and optionally GRAD = True (run with gradients enabled). Each
where_decline_*.py defines DECLINES: for each [Where] site in source order, a piece of the
reason it is declined with.

Checks: the mended text equals the golden ``<name>.py.mended`` (``pytest --update-goldens``
rewrites them), mending is idempotent, the mended program returns what the original does
(eager, and compiled with backend="eager"), break counts before/after, and declines.
"""

from __future__ import annotations

import sys
import types
import warnings
from pathlib import Path

import pytest
import torch

from graphmend import _core
import graphmend.runtime as runtime

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "mend"
DECLINED = sorted(GOLDEN.glob("where_decline_*.py"))
FIXED = sorted(p for p in GOLDEN.glob("where_*.py") if p not in DECLINED)
WHERE_REWRITES = ("where", "cond")


def ids(paths):
    return [p.stem for p in paths]


def mend(source: str, filename: str) -> dict:
    return _core.mend_source(source, filename)


COVERED = "predicated with the enclosing if"


def where_sites(result: dict) -> list:
    """[Where] sites, less the nested/elif ones rewritten as part of their enclosing if."""
    return [d for d in result["diagnostics"]
            if d["rewrite"] in WHERE_REWRITES and COVERED not in d["message"]]


def load(source: str, path: Path, tag: str) -> types.ModuleType:
    name = f"where_program_{path.stem}_{tag}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


def entry(module: types.ModuleType):
    target = module.ENTRY
    if isinstance(target, type) and issubclass(target, torch.nn.Module):
        torch.manual_seed(0)
        return target()
    return target


def assert_same(actual, expected):
    torch.testing.assert_close(actual, expected, rtol=1e-6, atol=1e-6, equal_nan=True)


def break_count(fn, args) -> int:
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch._dynamo.explain(fn)(*args).graph_break_count


@pytest.fixture(autouse=True)
def _reset_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


# ---------------------------------------------------------------------------------------------
# Golden text and idempotence.


@pytest.mark.parametrize("path", FIXED + DECLINED, ids=ids(FIXED + DECLINED))
def test_golden_text(path: Path, update_goldens: bool):
    source = path.read_text()
    result = mend(source, path.name)
    assert result["error"] is None
    golden = path.with_name(path.name + ".mended")
    if update_goldens:
        golden.write_text(result["source"])
    assert golden.exists(), f"{golden.name} is missing: run pytest --update-goldens"
    assert result["source"] == golden.read_text()
    # Mending the mended text changes nothing and reports no internal error.
    codes = [d["code"] for d in result["diagnostics"]]
    assert "GM901" not in codes and "GM902" not in codes, result["diagnostics"]
    again = mend(result["source"], path.name)
    assert again["source"] == result["source"]
    assert not any(d["fixed"] for d in where_sites(again)), where_sites(again)


# ---------------------------------------------------------------------------------------------
# Fixed programs: same results, fewer breaks.


@pytest.mark.parametrize("path", FIXED, ids=ids(FIXED))
def test_fixed_program(path: Path):
    source = path.read_text()
    result = mend(source, path.name)
    original = load(source, path, "original")
    mended = load(result["source"], path, "mended")
    sites = where_sites(result)
    assert sites and all(d["fixed"] for d in sites), sites
    assert {d["rewrite"] for d in sites} == {original.REWRITE}

    with torch.set_grad_enabled(getattr(original, "GRAD", False)):
        original_fn, mended_fn = entry(original), entry(mended)
        for args in original.INPUTS:
            expected = original_fn(*args)
            assert_same(mended_fn(*args), expected)
            torch._dynamo.reset()
            assert_same(torch.compile(mended_fn, backend="eager")(*args), expected)
        before = break_count(original_fn, original.INPUTS[0])
        after = break_count(mended_fn, original.INPUTS[0])
    assert (before, after) == original.BREAKS


@pytest.mark.parametrize("name", ["where_cond_submodule", "where_cond_return", "where_elif_chain"])
def test_inductor(name: str):
    path = GOLDEN / f"{name}.py"
    original = load(path.read_text(), path, "original")
    mended = load(mend(path.read_text(), path.name)["source"], path, "mended")
    with torch.set_grad_enabled(getattr(original, "GRAD", False)):
        original_fn, mended_fn = entry(original), entry(mended)
        compiled = torch.compile(mended_fn, backend="inductor")
        for args in original.INPUTS:
            assert_same(compiled(*args), original_fn(*args))


def test_cond_gradients_match():
    path = GOLDEN / "where_cond_submodule.py"
    original = entry(load(path.read_text(), path, "original"))
    mended = entry(load(mend(path.read_text(), path.name)["source"], path, "mended"))
    compiled = torch.compile(mended, backend="eager")
    for sign in (1.0, -1.0):
        x = torch.full((2, 4), sign, requires_grad=True)
        x_mended = x.detach().clone().requires_grad_(True)
        original.zero_grad()
        compiled.zero_grad()
        original(x).sum().backward()
        compiled(x_mended).sum().backward()
        assert_same(x_mended.grad, x.grad)
        for a, b in zip(original.parameters(), mended.parameters()):
            if a.grad is None:
                assert b.grad is None or torch.all(b.grad == 0)
            else:
                assert_same(b.grad, a.grad)


# ---------------------------------------------------------------------------------------------
# Declines: reported with the failed condition, source left as it was.


@pytest.mark.parametrize("path", DECLINED, ids=ids(DECLINED))
def test_declined_program(path: Path):
    source = path.read_text()
    result = mend(source, path.name)
    module = load(source, path, "declined")
    sites = where_sites(result)
    assert len(sites) == len(module.DECLINES), sites
    for site, reason in zip(sites, module.DECLINES):
        assert not site["fixed"], site
        assert reason in site["message"], site
    if not any(d["fixed"] for d in result["diagnostics"]):
        assert result["source"] == source


# ---------------------------------------------------------------------------------------------
# The runtime checks: what is decided dynamically.


def test_where_ok_accepts_matching_tensors():
    c = torch.tensor(True)
    assert runtime.where_ok(c, torch.ones(2), torch.zeros(2))
    assert runtime.where_ok((c, torch.tensor(False)), torch.ones(2), torch.zeros(2), torch.ones(2))
    assert runtime.where_ok(torch.tensor([True]), torch.ones(2), torch.zeros(2))


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
    assert not runtime.where_ok(condition, *values)


def test_where_ok_autograd_hazard():
    a = torch.ones(2, requires_grad=True)
    b = torch.zeros(2)
    c = torch.tensor(True)
    assert not runtime.where_ok(c, a, b)
    with torch.no_grad():
        assert runtime.where_ok(c, a, b)


def test_where_ok_does_not_break():
    def fn(x, y):
        c = x.sum() > 0
        if runtime.where_ok(c, x, y):
            return torch.where(c, x, y)
        return x

    assert break_count(fn, (torch.ones(2), torch.zeros(2))) == 0
    assert break_count(fn, (torch.ones(2), torch.zeros(3))) == 0


def test_cond_runs_one_branch_eagerly():
    calls = []

    def yes(x):
        calls.append("yes")
        return x + 1

    def no(x):
        calls.append("no")
        return x - 1

    assert torch.equal(runtime.cond(torch.tensor(True), yes, no, (torch.ones(1),)), torch.ones(1) * 2)
    assert torch.equal(runtime.cond(torch.tensor(0.0), yes, no, (torch.ones(1),)), torch.zeros(1))
    assert calls == ["yes", "no"]
