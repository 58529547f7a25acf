"""``graphmend.compile`` without example inputs: the first call is both the caller's call and
Dynamo's evidence run. Branches Dynamo broke on that the text gave no sign of are mended for
the later calls; the first call's side effects happen once, as in the original.

The programs live in tests/python/programs_evidence/ (mending reads source)."""

from __future__ import annotations

import io
import sys
import logging
import contextlib

import pytest
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

import graphmend
from graphmend import evidence, mender
from programs_evidence import programs


def site(marker):
    with open(programs.__file__) as f:
        for number, line in enumerate(f, 1):
            if line.rstrip().endswith(f"# SITE: {marker}"):
                return programs.__file__, number
    raise AssertionError(marker)


@pytest.fixture(autouse=True)
def fresh(tmp_path, monkeypatch):
    """Each test with its own cache folder: evidence a test's first call remembers must not
    reach the next test."""
    monkeypatch.setattr(mender, "_cache_dir", lambda: str(tmp_path / "cache"))
    mender._FILE_CACHE.clear()
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def compile_again(obj, **kwargs):
    """``graphmend.compile(obj)`` as a new process would run it: nothing of this process's
    mending or tracing kept, only the cache folder."""
    mender._FILE_CACHE.clear()
    torch._dynamo.reset()
    return graphmend.compile(obj, **kwargs)


def graphs_of(call, *args):
    """Dynamo's graphs for one call of what ``call`` runs now (a fresh trace)."""
    torch._dynamo.reset()
    return torch._dynamo.explain(call)(*args).graph_count


def test_unannotated_tensor_branch_reaches_one_graph():
    counter = CompileCounter()
    compiled = graphmend.compile(programs.scale, backend=counter)
    report = graphmend.compile_report(compiled)
    assert report.evidence == "pending"
    x = torch.ones(3)
    assert torch.equal(compiled(x, torch.tensor(1.0)), x * 2)
    assert counter.frame_count == 2  # the first call: the program as the text mends it
    report = graphmend.compile_report(compiled)
    assert report.evidence == "first call" and report.recompiled
    assert report.from_text == []
    assert {(d.filename, d.line) for d in report.from_runtime} == {site("scale")}
    assert {(b.filename, b.line) for b in report.breaks_before} == {site("scale")}
    assert "from the evidence" in str(report)
    before = counter.frame_count
    assert torch.equal(compiled(x, torch.tensor(-1.0)), x)
    assert torch.equal(compiled(x, torch.tensor(2.0)), x * 2)
    assert counter.frame_count == before + 1  # one graph serves both branches
    current = compiled.__graphmend_first_call__.current
    assert graphs_of(current, x, torch.tensor(-1.0)) == 1


@pytest.mark.inductor
def test_unannotated_tensor_branch_under_inductor():
    compiled = graphmend.compile(programs.scale)
    x = torch.randn(8)
    for t in (1.0, -1.0, 3.0, 0.0):
        assert torch.allclose(compiled(x, torch.tensor(t)), programs.scale(x, torch.tensor(t)))
    assert graphmend.compile_report(compiled).recompiled
    assert graphs_of(compiled.__graphmend_first_call__.current, x, torch.tensor(1.0)) == 1


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_an_unannotated_mask_store_is_written_densely(backend):
    """Dynamo broke on `out[valid]` (an operator of data-dependent output shape) where the
    text shows no tensor: the index counts as a mask there, and the store is written densely
    (behind masked_assign_ok, which checks the mask at run time)."""
    compiled = graphmend.compile(programs.masked_loss, backend=backend)
    target = torch.tensor([0, -1, 2, 3, -1, 1])
    loss = torch.arange(6.0) / 7
    assert torch.equal(compiled(loss, target), programs.masked_loss(loss, target))
    report = graphmend.compile_report(compiled)
    assert {(d.filename, d.line) for d in report.from_runtime} == {site("masked")}
    for mask in (target, -torch.ones(6, dtype=torch.int64), torch.ones(6, dtype=torch.int64)):
        assert torch.equal(compiled(loss, mask), programs.masked_loss(loss, mask))
    assert graphs_of(compiled.__graphmend_first_call__.current, loss, target) == 1


@pytest.mark.parametrize("backend", ["eager", "inductor"])
@pytest.mark.parametrize(
    "program, marker", [("trim_to_length", "length"), ("leading_length", "leading")]
)
def test_an_unannotated_scalar_read_is_captured(program, marker, backend):
    """Dynamo broke on `int(length)` where the text shows no tensor: the read counts as one
    of a tensor there, and is captured (runtime.captured_int reads anything else as
    written), also where the read comes first and no graph names its break."""
    function = getattr(programs, program)
    compiled = graphmend.compile(function, backend=backend)
    x = torch.arange(12.0).reshape(2, 6)
    assert torch.equal(compiled(x, torch.tensor(3)), function(x, torch.tensor(3)))
    report = graphmend.compile_report(compiled)
    assert {(d.filename, d.line) for d in report.from_runtime} == {site(marker)}
    for length in (torch.tensor(6), torch.tensor(0), 4):
        assert torch.equal(compiled(x, length), function(x, length))
    assert graphs_of(compiled.__graphmend_first_call__.current, x, torch.tensor(2)) == 1


def test_a_python_number_takes_the_original_path():
    """The evidence says `t` was a tensor on the first call; a later call with an int fails
    the run-time check and runs the original branch."""
    compiled = graphmend.compile(programs.scale, backend="eager")
    x = torch.ones(3)
    compiled(x, torch.tensor(1.0))
    assert graphmend.compile_report(compiled).recompiled
    assert torch.equal(compiled(x, 1), x * 2)
    assert torch.equal(compiled(x, -1), x)


def test_side_effects_happen_once_on_the_first_call(caplog):
    x = torch.ones(3)
    t = torch.tensor(1.0)

    def run(call):
        out = io.StringIO()
        torch.manual_seed(7)
        with contextlib.redirect_stdout(out), caplog.at_level(logging.WARNING):
            caplog.clear()
            result = call(x, t)
        return result, out.getvalue(), [r.getMessage() for r in caplog.records], torch.rand(1)

    expected = run(programs.loud)
    compiled = graphmend.compile(programs.loud, backend="eager")
    got = run(compiled)
    assert torch.equal(got[0], expected[0])  # the same RNG draw
    assert got[1] == expected[1] and got[1].count("scale") == 1
    assert got[2] == expected[2] and len(got[2]) == 1
    assert torch.equal(got[3], expected[3])  # the RNG advanced as far
    assert graphmend.compile_report(compiled).recompiled
    again = run(compiled)
    assert again[1] == expected[1] and again[2] == expected[2]


def test_batchnorm_statistics_move_once():
    torch.manual_seed(0)
    original = programs.Norm()
    twin = programs.Norm()
    twin.load_state_dict(original.state_dict())
    compiled = graphmend.compile(twin, backend="eager")
    x, t = torch.randn(5, 4), torch.tensor(1.0)
    expected = original(x, t)
    got = compiled(x, t)
    assert torch.allclose(got, expected)
    assert torch.equal(twin.bn.running_mean, original.bn.running_mean)
    assert int(twin.bn.num_batches_tracked) == 1
    report = graphmend.compile_report(compiled)
    assert report.recompiled and {(d.filename, d.line) for d in report.from_runtime} == {
        site("norm")
    }
    # Later calls run the second mend; the counter and the statistics carry on from the first.
    expected = original(x, -t)
    assert torch.allclose(compiled(x, -t), expected)
    assert torch.equal(twin.bn.running_mean, original.bn.running_mean)
    assert compiled._orig_mod.calls == original.calls == 2
    compiled.eval()
    original.eval()
    assert torch.allclose(compiled(x, t), original(x, t))
    assert graphs_of(compiled._orig_mod, x, t) == 1


def test_no_break_no_recompile():
    counter = CompileCounter()
    compiled = graphmend.compile(programs.plain, backend=counter)
    first = compiled.__graphmend_first_call__.current
    x = torch.randn(4)
    compiled(x)
    compiled(x)
    report = graphmend.compile_report(compiled)
    assert report.evidence == "first call" and not report.recompiled
    assert report.first_call_graphs == 1 and report.breaks_before == []
    assert counter.frame_count == 1
    assert compiled.__graphmend_first_call__.current is first
    assert "no recompile" in str(report)


def test_a_break_in_a_loop_counts():
    """Dynamo skips the loop's frame (0 graphs): its break still names the line."""
    compiled = graphmend.compile(programs.in_loop, backend="eager")
    x, ts = torch.ones(3), [torch.tensor(1.0), torch.tensor(-1.0), torch.tensor(2.0)]
    assert torch.equal(compiled(x, ts), programs.in_loop(x, ts))
    report = graphmend.compile_report(compiled)
    assert report.first_call_graphs == 0 and report.frames_skipped >= 1
    assert site("loop") in {(b.filename, b.line) for b in report.breaks_before}
    assert site("loop") in {(d.filename, d.line) for d in report.from_runtime}
    assert torch.equal(compiled(x, ts), programs.in_loop(x, ts))


def test_the_evidence_is_remembered_for_the_next_process():
    """The lines a first call's evidence mended are kept in the cache folder: a later
    compile mends with them from the start, and its first call compiles once, for good."""
    x = torch.ones(3)
    first = graphmend.compile(programs.scale, backend="eager")
    first(x, torch.tensor(1.0))
    assert graphmend.compile_report(first).recompiled

    counter = CompileCounter()
    later = compile_again(programs.scale, backend=counter)
    report = graphmend.compile_report(later)
    assert report.remembered_lines == {site("scale")[0]: (site("scale")[1],)}
    assert {(d.filename, d.line) for d in report.from_runtime} == {site("scale")}
    for t in (1.0, -1.0, 2.0):
        assert torch.equal(later(x, torch.tensor(t)), programs.scale(x, torch.tensor(t)))
    report = graphmend.compile_report(later)
    assert not report.recompiled and report.breaks_before == []
    assert counter.frame_count == 1  # one graph, on the first call, serves both branches
    assert "remembered from an earlier run" in str(report)


def test_remembered_evidence_of_a_changed_file_is_dropped(tmp_path, monkeypatch):
    """Evidence holds for the text it was found on: after an edit the first call records
    it again."""
    import importlib.util

    source = tmp_path / "edited_program.py"
    text = "import torch\n\n\ndef scale(x, t):\n    if t > 0:\n        x = x * 2\n    return x\n"
    source.write_text(text)

    def load():
        spec = importlib.util.spec_from_file_location("edited_program", source)
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, "edited_program", module)
        spec.loader.exec_module(module)
        return module.scale

    x = torch.ones(3)
    graphmend.compile(load(), backend="eager")(x, torch.tensor(1.0))
    assert graphmend.compile_report(compile_again(load(), backend="eager")).remembered_lines
    source.write_text("# edited\n" + text)
    edited = compile_again(load(), backend="eager")
    assert graphmend.compile_report(edited).remembered_lines == {}
    assert torch.equal(edited(x, torch.tensor(1.0)), x * 2)
    assert graphmend.compile_report(edited).recompiled  # recorded again, on the new text


def test_evidence_off_is_the_static_mend():
    counter = CompileCounter()
    compiled = graphmend.compile(programs.scale, backend=counter, evidence=False)
    x = torch.ones(3)
    compiled(x, torch.tensor(1.0))
    compiled(x, torch.tensor(-1.0))
    assert graphmend.compile_report(compiled) is None
    assert counter.frame_count == 2


def test_a_first_call_that_raises_raises_as_the_original():
    compiled = graphmend.compile(programs.Guarded(), backend="eager")
    x = torch.ones(3)
    with pytest.raises(ValueError, match="must not be negative"):
        compiled(x, torch.tensor(-1.0))
    report = graphmend.compile_report(compiled)
    assert report.evidence == "first call"
    assert torch.equal(compiled(x, torch.tensor(2.0)), x * 2)
    with pytest.raises(ValueError, match="must not be negative"):
        compiled(x, torch.tensor(-1.0))


def test_options_torch_compile_takes_itself_keep_the_static_mend():
    """An option ``torch.compile`` takes out of ``options`` (guard_filter_fn) leaves no
    backend to wrap: no evidence, the static mend alone."""
    compiled = graphmend.compile(
        programs.plain, options={"guard_filter_fn": lambda entries: [True] * len(entries)}
    )
    assert graphmend.compile_report(compiled) is None


def test_record_reports_what_explain_reports():
    x = torch.ones(3)
    result, found = evidence.record(programs.scale, x, torch.tensor(1.0))
    assert torch.equal(result, x * 2)
    explained = torch._dynamo.explain(programs.scale)(x, torch.tensor(1.0))
    assert found.graph_count == explained.graph_count
    assert [(b.filename, b.line) for b in found.breaks] == [site("scale")]
    assert found.jump_lines() == {site("scale")[0]: (site("scale")[1],)}


@pytest.mark.parametrize(
    "entry, gb_id, graphs_before", [("entry_scale", "GB0170", 2), ("entry_loop", "GB7000", 0)]
)
def test_explain_mends_with_the_evidence(entry, gb_id, graphs_before):
    import json
    import subprocess
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "graphmend",
            "explain",
            f"{programs.__file__}:{entry}",
            "--output-format",
            "json",
            "--max-breaks",
            "0",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["before"]["graphs"] == graphs_before
    (found,) = report["before"]["breaks"]
    assert found["gb_id"] == gb_id and found["code"] == "GM101" and found["status"] == "fixed"
    assert report["after"] == {"graphs": 1, "breaks": []}
