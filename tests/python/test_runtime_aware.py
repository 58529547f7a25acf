"""Runtime-aware ``graphmend.compile(obj, example_inputs=...)``: Dynamo's profiling run
decides which sites are mended and whether Dynamo's capture options are enabled.

The programs live in tests/python/programs_runtime/ (mending reads source); their lines are
found by ``# SITE:`` markers.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import logging
import os
import warnings

import pytest
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

import graphmend
from graphmend import api, explainer, mender, runtime_aware
from programs_runtime import helpers, nested, no_gain, observed, scalars, two_branches

CAPTURE_OPTIONS = (
    "capture_scalar_outputs",
    "capture_dynamic_output_shape_ops",
    "nested_graph_breaks",
)


def site(module, marker):
    """(file, line) of the line marked ``# SITE: <marker>`` in ``module``."""
    with open(module.__file__) as f:
        for number, line in enumerate(f, 1):
            if line.rstrip().endswith(f"# SITE: {marker}"):
                return module.__file__, number
    raise AssertionError(f"no site {marker!r} in {module.__file__}")


def sites(items):
    return {(i.filename, i.line) for i in items}


def config():
    return {name: getattr(torch._dynamo.config, name) for name in CAPTURE_OPTIONS}


@pytest.fixture(autouse=True)
def fresh():
    mender._FILE_CACHE.clear()
    torch._dynamo.reset()
    before = config()
    yield
    torch._dynamo.reset()
    assert config() == before, "a capture option leaked into the global config"


def compile_quietly(obj, *args, **kwargs):
    """Compiles with CaptureOptionsEnabled turned into an error: it must not be warned."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", graphmend.CaptureOptionsEnabled)
        return graphmend.compile(obj, *args, **kwargs)


# -- mending only where Dynamo broke -----------------------------------------------------------


def test_only_the_reached_sites_are_mended():
    compiled = compile_quietly(two_branches.run, example_inputs=(torch.ones(4),), backend="eager")
    report = graphmend.compile_report(compiled)
    reached, printed = site(two_branches, "reached"), site(two_branches, "print")
    unreached, helper = site(two_branches, "unreached"), site(helpers, "helper")

    assert {reached, printed} <= sites(report.breaks_before)
    assert sites(report.mended) == {reached, printed}
    declined = {(d.filename, d.line): d for d in report.mend.declined}
    for unvisited in (unreached, helper):  # the helper's file had no break: nothing rewritten
        assert "Dynamo did not break here in the profiling run" in declined[unvisited].message
    assert not sites(report.breaks_after) & {reached, printed}
    assert len(report.breaks_after) < len(report.breaks_before)
    assert report.capture_options == {} and report.rejected == {}


def test_without_examples_every_site_is_mended():
    compiled = graphmend.compile(two_branches.run, backend="eager")
    assert graphmend.compile_report(compiled).evidence == "pending"  # the first call's
    fixed = sites(graphmend.mend_report(compiled).fixed)
    assert site(two_branches, "unreached") in fixed and site(helpers, "helper") in fixed


@pytest.mark.parametrize(
    "x, deep",
    [
        (torch.ones(4), False),
        (-torch.ones(4), False),
        (torch.ones(4), True),  # mean > 1, max > 5 after +10
        (torch.full((4,), 0.25), True),  # mean <= 1
        (-torch.ones(4), True),
    ],
)
def test_outputs_and_prints_equal_the_original(capsys, x, deep):
    compiled = graphmend.compile(two_branches.run, example_inputs=(torch.ones(4),), backend="eager")
    capsys.readouterr()  # the profiling runs print too
    expected = two_branches.run(x, deep)
    expected_out = capsys.readouterr().out
    got = compiled(x, deep)
    assert torch.equal(got, expected)
    assert capsys.readouterr().out == expected_out


def test_one_info_record_and_no_output(capsys, caplog):
    with caplog.at_level(logging.INFO, logger="graphmend"):
        compile_quietly(two_branches.run, example_inputs=(torch.ones(4),), backend="eager")
    records = [r for r in caplog.records if r.name == "graphmend"]
    assert len(records) == 1 and records[0].levelno == logging.INFO
    assert "2 site(s) mended in 1 round(s), 2 call(s) of the model" in records[0].getMessage()
    assert capsys.readouterr().out == "y0 tensor(2.)\n" * 2  # the program's own, per run


# -- capture options ---------------------------------------------------------------------------


def test_item_enables_capture_scalar_outputs_for_the_calls_only():
    x = torch.tensor([1.0, -2.0, 3.0])
    counter = CompileCounter()
    with pytest.warns(graphmend.CaptureOptionsEnabled, match="capture_scalar_outputs") as caught:
        compiled = graphmend.compile(scalars.scaled, example_inputs=(x,), backend=counter)
    assert "scalars.py:" in str(caught[0].message)
    report = graphmend.compile_report(compiled)
    item = site(scalars, "item")
    assert report.capture_options == {"capture_scalar_outputs": True}
    assert sites(report.capture_reasons["capture_scalar_outputs"]) == {item}
    assert item in sites(report.breaks_before)
    assert len(report.breaks_after) < len(report.breaks_before)
    assert report.rejected == {}

    assert torch._dynamo.config.capture_scalar_outputs is False
    assert torch.allclose(compiled(x), scalars.scaled(x))
    assert torch._dynamo.config.capture_scalar_outputs is False
    assert counter.frame_count == 1  # traced under the option: one frame, no break


def test_mask_module_enables_dynamic_shapes_and_keeps_state():
    torch.manual_seed(1)
    model = scalars.Masked()
    x = torch.randn(3, 4)
    rng = torch.get_rng_state()
    with pytest.warns(graphmend.CaptureOptionsEnabled, match="capture_dynamic_output_shape_ops"):
        compiled = graphmend.compile(model, example_inputs=x, backend="eager")
    assert torch.equal(torch.get_rng_state(), rng)
    assert model.calls.item() == 0  # buffers restored after the profiling runs
    report = graphmend.compile_report(compiled)
    assert report.capture_options == {"capture_dynamic_output_shape_ops": True}
    assert site(scalars, "module mask") in sites(
        report.capture_reasons["capture_dynamic_output_shape_ops"]
    )
    assert isinstance(compiled, torch.nn.Module)

    got = compiled(x)
    assert config() == {name: False for name in CAPTURE_OPTIONS}
    assert torch.allclose(got, model(x))


class _Plateau(torch.nn.Module):
    """PyTorch's ReduceLROnPlateau.step as a module (tests/peer/pytorch/reduce_lr_on_plateau.py):
    its state is plain Python attributes, changed on every call."""

    def __init__(self):
        super().__init__()
        self.best = float("inf")
        self.bad_steps = 0
        self.lr = 0.1
        self.history = ()

    def forward(self, loss):
        current = float(loss * 1.0)
        if current < self.best:
            self.best, self.bad_steps = current, 0
        else:
            self.bad_steps += 1
        if self.bad_steps > 1:
            self.lr, self.bad_steps = self.lr * 0.5, 0
        self.history = self.history + (current,)
        return torch.tensor(self.lr)


def test_profiling_runs_leave_plain_attributes_as_they_were():
    model, reference = _Plateau(), _Plateau()
    losses = [torch.tensor(v) for v in (1.0, 0.5, 0.7, 0.6, 0.65)]
    compiled = graphmend.compile(model, example_inputs=(losses[0],), backend="eager")
    report = graphmend.compile_report(compiled)
    assert report.model_calls >= 2  # the model ran while compiling...
    assert (model.best, model.bad_steps, model.lr, model.history) == (float("inf"), 0, 0.1, ())
    for loss in losses:  # ...and the compiled model starts from the original's state
        assert torch.equal(compiled(loss), reference(loss))
    assert (model.best, model.bad_steps, model.lr, model.history) == (
        reference.best,
        reference.bad_steps,
        reference.lr,
        reference.history,
    )


class _Moments:
    """A plain object the model holds (trl's RunningMoments): not a module, not a container."""

    def __init__(self):
        self.mean, self.count = 0.0, 0


class _Stateful(torch.nn.Module):
    """State a call changes in every other form: a submodule made on the first call (torchtune's
    setup_cache), a list in a dict appended to (trl's metrics), a held object's attributes,
    and a tensor attribute changed in place."""

    def __init__(self):
        super().__init__()
        self.cache = None
        self.metrics = {"loss": []}
        self.moments = _Moments()
        self.total = torch.zeros(())

    def forward(self, x):
        if self.cache is None:
            self.cache = torch.nn.Linear(3, 3)
            torch.nn.init.ones_(self.cache.weight)
            torch.nn.init.zeros_(self.cache.bias)
            print("cache made")
        y = self.cache(x)
        self.metrics["loss"].append(float(y.sum()))
        self.moments.count += 1
        self.moments.mean += (y.mean().item() - self.moments.mean) / self.moments.count
        self.total.add_(y.sum().detach())
        return y * len(self.metrics["loss"]) + self.total


def test_profiling_runs_leave_submodules_containers_objects_and_tensors_as_they_were(capsys):
    torch.manual_seed(0)
    model = _Stateful()
    torch.manual_seed(0)
    reference = _Stateful()
    x = torch.randn(2, 3)
    metrics = model.metrics["loss"]
    with warnings.catch_warnings():  # the .item() may enable capture_scalar_outputs
        warnings.simplefilter("ignore", graphmend.CaptureOptionsEnabled)
        compiled = graphmend.compile(model, example_inputs=(x,), backend="eager")
    assert graphmend.compile_report(compiled).model_calls >= 2
    assert model.cache is None and "cache" not in model._modules
    assert model.metrics == {"loss": []} and model.metrics["loss"] is metrics
    assert (model.moments.mean, model.moments.count) == (0.0, 0)
    assert torch.equal(model.total, torch.zeros(()))
    capsys.readouterr()
    for _ in range(3):
        assert torch.allclose(compiled(x), reference(x))
    assert capsys.readouterr().out == "cache made\ncache made\n"  # once each, as in the original
    assert model.metrics["loss"] == reference.metrics["loss"] and metrics is model.metrics["loss"]
    assert model.moments.count == reference.moments.count == 3
    assert torch.allclose(model.total, reference.total)


class _Schedule:
    """An object reached only through a bound method (LambdaLR's `lr_lambda =
    scheduler.schedule`): a call changes its attributes."""

    def __init__(self):
        self.last = 0.0

    def schedule(self, n):
        self.last = 0.01 * n
        return self.last


class _Stepped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lr_lambda = _Schedule().schedule

    def forward(self, x):
        previous = self.lr_lambda.__self__.last
        print("recent lr-multiplier:", previous)
        return x * self.lr_lambda(2)


def test_profiling_runs_leave_objects_held_through_bound_methods_as_they_were(capsys):
    model = _Stepped()
    x = torch.ones(2)
    compiled = graphmend.compile(model, example_inputs=(x,), backend="eager")
    assert graphmend.compile_report(compiled).model_calls >= 1
    assert model.lr_lambda.__self__.last == 0.0
    capsys.readouterr()
    for _ in range(2):
        assert torch.equal(compiled(x), x * 0.02)
    assert capsys.readouterr().out == "recent lr-multiplier: 0.0\nrecent lr-multiplier: 0.02\n"
    assert model.lr_lambda.__self__.last == 0.02


def test_a_backend_failing_under_the_option_is_rejected():
    # explain's own backend captures it in one graph; Inductor cannot lower it. The options
    # must not be enabled, and the compiled object must run as torch.compile's would.
    torch.manual_seed(0)
    x, values = torch.randn(2, 6, 8), torch.randn(2, 5, 8)
    is_global = torch.zeros(2, 6, dtype=torch.bool)
    is_global[:, 0] = True
    compiled = compile_quietly(scalars.global_scores, example_inputs=(x, is_global, values))
    report = graphmend.compile_report(compiled)
    assert report.capture_options == {}
    why = report.rejected["capture_scalar_outputs"]
    assert why.startswith("the compiled program raised") and "GuardOnDataDependentSymNode" in why
    assert site(scalars, "unbacked size") in sites(report.breaks_after)
    # Inductor sums in another order: equal to float32 rounding of the terms
    assert torch.allclose(
        compiled(x, is_global, values), scalars.global_scores(x, is_global, values), atol=1e-5
    )


def test_enabled_options_reuse_the_compiled_trial():
    x = torch.tensor([1.0, -2.0, 3.0])
    counter = CompileCounter()
    with pytest.warns(graphmend.CaptureOptionsEnabled):
        compiled = graphmend.compile(scalars.scaled, example_inputs=(x,), backend=counter)
    assert counter.frame_count == 1  # the trial call compiled it, under the option
    compiled(x)
    compiled(x * 2)
    assert counter.frame_count == 1  # no recompilation for the user's calls


def test_capture_false_never_enables():
    x = torch.tensor([1.0, -2.0, 3.0])
    compiled = compile_quietly(
        scalars.positives, example_inputs=(x,), capture=False, backend="eager"
    )
    report = graphmend.compile_report(compiled)
    assert report.capture_options == {}
    assert "capture=False" in report.rejected["capture_dynamic_output_shape_ops"]
    assert len(report.breaks_after) == len(report.breaks_before) == 1
    assert torch.allclose(compiled(x), scalars.positives(x))


def test_no_fewer_breaks_is_rejected():
    x = torch.ones(8)
    compiled = compile_quietly(no_gain.clamp_count, example_inputs=(x,), backend="eager")
    report = graphmend.compile_report(compiled)
    assert report.capture_options == {}
    assert "no fewer" in report.rejected["capture_scalar_outputs"]
    assert site(no_gain, "item") in sites(report.breaks_after)


@pytest.mark.parametrize(
    "differs, why",
    [
        (lambda compiled: True, "the outputs differ"),  # already under explain
        (lambda compiled: compiled, "the compiled program's outputs differ"),
    ],
)
def test_different_outputs_are_rejected(monkeypatch, differs, why):
    real = api._same_output
    monkeypatch.setattr(
        runtime_aware,
        "_same_output",
        lambda a, b, compiled=False: not differs(compiled) and real(a, b),
    )
    x = torch.tensor([1.0, -2.0, 3.0])
    compiled = compile_quietly(scalars.scaled, example_inputs=(x,), backend="eager")
    report = graphmend.compile_report(compiled)
    assert report.capture_options == {}
    assert report.rejected["capture_scalar_outputs"].startswith(why)


def test_dynamo_raising_under_the_option_is_rejected(monkeypatch):
    real = api._run_explain

    def failing(obj, args, kwargs, **options):
        if torch._dynamo.config.capture_scalar_outputs:
            raise AssertionError("guard on data-dependent symbol u0")
        return real(obj, args, kwargs, **options)

    monkeypatch.setattr(explainer, "_run_explain", failing)
    x = torch.tensor([1.0, -2.0, 3.0])
    compiled = compile_quietly(scalars.scaled, example_inputs=(x,), backend="eager")
    report = graphmend.compile_report(compiled)
    assert report.capture_options == {}
    assert report.rejected["capture_scalar_outputs"] == (
        "Dynamo raised AssertionError: guard on data-dependent symbol u0"
    )
    assert torch.allclose(compiled(x), scalars.scaled(x))


# -- nested graph breaks and the search over options -------------------------------------------


@pytest.mark.parametrize("x", [torch.ones(4), -torch.ones(4), torch.full((4,), 0.1)])
def test_a_break_in_a_helper_enables_nested_graph_breaks_only(x):
    counter = CompileCounter()
    with pytest.warns(graphmend.CaptureOptionsEnabled, match="nested_graph_breaks") as caught:
        compiled = graphmend.compile(nested.outer, example_inputs=(torch.ones(4),), backend=counter)
    assert "nested.py:" in str(caught[0].message)
    report = graphmend.compile_report(compiled)
    item = site(nested, "nested item")
    assert report.capture_options == {"nested_graph_breaks": True}
    assert sites(report.capture_reasons["nested_graph_breaks"]) == {item}
    # Called for by the .item(), but it removes nothing the nested option does not.
    assert report.rejected["capture_scalar_outputs"].startswith("not needed")
    assert len(report.breaks_before) == 2 and sites(report.breaks_after) == {item}

    assert torch.equal(compiled(x), nested.outer(x))  # each branch of the helper
    assert config() == {name: False for name in CAPTURE_OPTIONS}


def test_options_failing_together_are_tried_one_fewer(monkeypatch):
    real = api._run_explain

    def failing(obj, args, kwargs, **options):
        dynamo = torch._dynamo.config
        if dynamo.capture_scalar_outputs and dynamo.nested_graph_breaks:
            raise AssertionError("guard on data-dependent symbol u0")
        return real(obj, args, kwargs, **options)

    monkeypatch.setattr(explainer, "_run_explain", failing)
    with pytest.warns(graphmend.CaptureOptionsEnabled):
        compiled = graphmend.compile(nested.outer, example_inputs=(torch.ones(4),), backend="eager")
    report = graphmend.compile_report(compiled)
    assert report.capture_options == {"nested_graph_breaks": True}
    assert report.rejected["capture_scalar_outputs"] == (
        "Dynamo raised AssertionError: guard on data-dependent symbol u0 "
        "(tried with nested_graph_breaks)"
    )
    x = -torch.ones(4)
    assert torch.equal(compiled(x), nested.outer(x))


def test_options_that_remove_nothing_together_end_the_search(monkeypatch):
    tried = []

    def no_fewer(profiler, mended, options, after, expected, kwargs):
        tried.append(tuple(options))
        return None, f"{len(after.breaks)} break(s) with it, {len(after.breaks)} without: no fewer"

    monkeypatch.setattr(runtime_aware, "_capture_trial", no_fewer)
    compiled = compile_quietly(nested.outer, example_inputs=(torch.ones(4),), backend="eager")
    report = graphmend.compile_report(compiled)
    assert tried == [("capture_scalar_outputs", "nested_graph_breaks")]
    assert report.capture_options == {}
    assert set(report.rejected) == {"capture_scalar_outputs", "nested_graph_breaks"}
    assert all("no fewer" in why for why in report.rejected.values())


def test_a_later_trials_compiled_code_is_dropped(monkeypatch):
    """Two compiles of one function share Dynamo's cache whatever options they ran under: when
    the set chosen is not the last one tried, the cache is reset before anything is returned."""
    events = []
    real_reset = torch._dynamo.reset

    def reset():
        events.append("reset")
        real_reset()

    def trial(profiler, mended, options, after, expected, kwargs):
        events.append(tuple(options))
        if len(options) > 1:
            return None, "Dynamo raised AssertionError: no"
        fewer = dataclasses.replace(after.report, breaks=after.breaks[:1])
        run = dataclasses.replace(after, report=fewer)
        run.compiled = torch.compile(mended, backend="eager")
        return run, ""  # both single options kept with one break: the first one wins

    monkeypatch.setattr(torch._dynamo, "reset", reset)
    monkeypatch.setattr(runtime_aware, "_capture_trial", trial)
    with pytest.warns(graphmend.CaptureOptionsEnabled):
        compiled = graphmend.compile(nested.outer, example_inputs=(torch.ones(4),), backend="eager")
    report = graphmend.compile_report(compiled)
    assert report.capture_options == {"capture_scalar_outputs": True}
    tried = [e for e in events if e != "reset"]
    assert tried[-1] == ("nested_graph_breaks",) and events[-1] == "reset"
    x = -torch.ones(4)
    assert torch.equal(compiled(x), nested.outer(x))


def test_capture_false_never_enables_nested_graph_breaks():
    compiled = compile_quietly(
        nested.outer, example_inputs=(torch.ones(4),), capture=False, backend="eager"
    )
    report = graphmend.compile_report(compiled)
    assert report.capture_options == {}
    assert report.rejected["nested_graph_breaks"] == "not tried: capture=False"
    assert len(report.breaks_after) == 2
    x = torch.ones(4)
    assert torch.equal(compiled(x), nested.outer(x))


def test_same_output():
    t = torch.tensor([1.0, 2.0])
    assert api._same_output((t, {"a": 1}), (t.clone(), {"a": 1}))
    assert not api._same_output(t, t + 1)
    assert not api._same_output(t, t.double())
    assert not api._same_output([t], (t,))
    # a backend's rounding: within its tolerance only when comparing a compiled output
    assert not api._same_output(t, t * (1 + 5e-5))
    assert api._same_output(t, t * (1 + 5e-5), compiled=True)
    assert not api._same_output(t, t * (1 + 1e-3), compiled=True)
    half = t.half()
    assert api._same_output(half, half * (1 + 5e-3), compiled=True)


# -- conditions Dynamo observed on tensors the text does not show -------------------------------

TIMESTEPS = [
    torch.tensor(4),
    torch.tensor(3),
    torch.tensor(1),
    torch.tensor(0),
    torch.tensor(-1),
    4,
    0,
]


def test_observed_conditions_are_mended_behind_a_check():
    x = torch.randn(3)
    model = observed.Blend()
    compiled = compile_quietly(model, example_inputs=(x, torch.tensor(4)), backend="eager")
    report = graphmend.compile_report(compiled)
    marked = {site(observed, "conditional"), site(observed, "if")}
    assert sites(report.breaks_before) == marked
    assert sites(report.mended) == marked and report.breaks_after == []
    for d in report.mended:
        assert "(Dynamo broke on it when the program ran)" in d.message
    assert (report.rounds, report.model_calls, report.dropped_rounds) == (1, 2, [])
    for t in TIMESTEPS:  # a Python int fails the check: the original statement runs
        assert torch.equal(compiled(x, t), model(x, t)), t


def test_static_mending_observes_nothing():
    _, report = graphmend.mend(observed.Blend(), report=True)
    lines = {site(observed, "conditional")[1], site(observed, "if")[1]}
    assert not [d for d in report.diagnostics if d.line in lines]


def test_an_observed_guard_is_trapped():
    model = observed.Guard()
    x = torch.randn(3)
    compiled = compile_quietly(model, example_inputs=(x, torch.tensor(2)), backend="eager")
    report = graphmend.compile_report(compiled)
    assert [(d.line, d.code) for d in report.mended] == [(site(observed, "guard")[1], "GM105")]
    assert report.breaks_after == []
    assert torch.equal(compiled(x, torch.tensor(5)), model(x, torch.tensor(5)))
    with pytest.raises(ValueError, match="timestep must not be negative"):
        compiled(x, torch.tensor(-1))


@pytest.mark.inductor
def test_observed_conditions_under_inductor():
    x = torch.randn(3)
    model = observed.Blend()
    compiled = compile_quietly(model, example_inputs=(x, torch.tensor(4)))
    for t in TIMESTEPS:
        assert torch.allclose(compiled(x, t), model(x, t), rtol=1e-5, atol=1e-6), t


# -- rounds --------------------------------------------------------------------------------------


def test_a_second_round_mends_what_the_first_uncovered():
    x, timesteps = torch.randn(3), torch.tensor([3, 1])
    model = observed.Denoise()
    compiled = compile_quietly(model, example_inputs=(x, timesteps), backend="eager")
    report = graphmend.compile_report(compiled)
    # Dynamo gave up on the loop's frame: only the step's break shows at first
    assert sites(report.breaks_before) == {site(observed, "step")}
    assert sites(report.mended) == {site(observed, "step"), site(observed, "after")}
    assert report.breaks_after == []
    assert (report.rounds, report.model_calls) == (2, 3)
    assert "in 2 round(s), 3 call(s) of the model" in str(report)
    for ts in (timesteps, torch.tensor([2, 0]), torch.tensor([0, -1])):
        assert torch.equal(compiled(x, ts), model(x, ts))


def test_a_round_whose_run_raises_is_dropped(monkeypatch):
    real = explainer._run_explain
    runs = []

    def second_raises(obj, args, kwargs, **options):
        runs.append(obj)
        if len(runs) == 2:
            raise RuntimeError("torch.cond could not trace a branch")
        return real(obj, args, kwargs, **options)

    monkeypatch.setattr(explainer, "_run_explain", second_raises)
    x = torch.randn(3)
    model = observed.Blend()
    compiled = compile_quietly(model, example_inputs=(x, torch.tensor(4)), backend="eager")
    report = graphmend.compile_report(compiled)
    assert report.dropped_rounds == [
        "round 1: Dynamo raised RuntimeError: torch.cond could not trace a branch"
    ]
    assert report.mended == [] and report.breaks_after == report.breaks_before
    assert "dropped round 1" in str(report)
    assert torch.equal(compiled(x, torch.tensor(1)), model(x, torch.tensor(1)))


# -- the diffusers schedulers of the peer corpus ---------------------------------------------------

PEER = os.path.join(os.path.dirname(__file__), "..", "peer", "diffusers")

# Per program: the observed sites mended, those declined with why, and the breaks left.
# ddim's value indexed by the timestep is a masked read (runtime.index_where); euler's
# conditional expression selects Python numbers, so the rest of the function is duplicated
# into each side (tail duplication). ddpm's two indexed values are masked reads too, and its
# `if t > 0:` (`variance = 0` kept on the other side) is torch.cond's, the rest of the block
# folded into its branch functions; but the method its branch calls indexes by the 0-d
# timestep, which Dynamo reads with `.item()` inside a torch.cond branch, so that trace fails
# and the original statement runs: the frame still splits and the masked reads, no longer in
# the call's first graph, keep their breaks (index_where_ok needs a rerun to be safe).
SCHEDULERS = {
    "ddim_prev_alpha": ({28}, {}, 0),
    "ddpm_variance_noise": ({27, 39, 57}, {}, 3),
    "euler_churn_chained": ({22}, {}, 0),
}


def peer_program(name):
    spec = importlib.util.spec_from_file_location(f"peer_{name}", os.path.join(PEER, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_scheduler_sites_are_observed_and_mended_or_declined_with_why(name):
    program = peer_program(name)
    mended, declined, left = SCHEDULERS[name]
    torch.manual_seed(0)
    model = program.ENTRY()
    with torch.no_grad():
        compiled = compile_quietly(model, example_inputs=program.INPUTS[0], backend="eager")
        report = graphmend.compile_report(compiled)
        assert {d.line for d in report.mended} == mended
        assert {d.line: d.reason_id for d in report.mend.declined} == declined
        assert len(report.breaks_after) == left and report.dropped_rounds == []
        for args in program.INPUTS:
            expected, got = model(*args), compiled(*args)
            assert all(
                torch.equal(a, b)
                for a, b in zip(
                    torch.utils._pytree.tree_leaves(expected), torch.utils._pytree.tree_leaves(got)
                )
            )


# -- what a fix relies on ------------------------------------------------------------------------


def test_a_helper_the_fix_relies_on_is_mended_though_dynamo_never_broke_there(caplog):
    """Lightning's detect_nan_parameters (tests/peer/lightning): the guard's fix defers the
    helper `print_nan_gradients` under its condition, so the helper must be mended too, though
    its branch (no gradients in the profiling run) never broke."""
    spec = importlib.util.spec_from_file_location(
        "peer_lightning_nan", os.path.join(PEER, "..", "lightning", "detect_nan_parameters.py")
    )
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    torch.manual_seed(0)
    model, original = program.ENTRY(), program.ENTRY()
    original.load_state_dict(model.state_dict())
    compiled = compile_quietly(model, example_inputs=program.INPUTS[0], backend="eager")
    report = graphmend.compile_report(compiled)
    helper_lines = {
        n
        for n, line in enumerate(open(program.__file__), 1)
        if line.strip().startswith(("if (param.grad is not None)", "log.info("))
    }
    assert helper_lines and helper_lines <= {d.line for d in report.mended}
    assert report.breaks_after == []
    for grad in (None, torch.full((2,), float("nan"))):
        for m in (model, original):
            m.layer.bias.grad = grad
        x, poison = torch.randn(3, 2), torch.tensor([0.0, float("inf")])
        records = []
        for m in (original, compiled):
            caplog.clear()
            with caplog.at_level(logging.INFO), pytest.raises(ValueError) as raised:
                m(x, poison)
            records.append(([r.getMessage() for r in caplog.records], str(raised.value)))
        assert records[0] == records[1]
        assert torch.equal(model.layer.bias, original.layer.bias)
