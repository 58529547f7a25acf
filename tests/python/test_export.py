"""``graphmend.export``: case models and peer programs that ``torch.export`` refuses (a
data-dependent branch) export after mending, strict and non-strict, and the exported
program returns (or raises) what the original does eagerly on every input it was exported
for, which drive both sides of each branch; the report (what was mended, what still blocks
the export with export's reason, the calls the exported program drops, the in-graph
asserts); the declines; ``graphmend explain --export``. bench/export_survey.py measures the
whole corpora (docs/RESULTS.md)."""

from __future__ import annotations

import json
import warnings

import pytest
import torch

import graphmend
from behaviour import fresh_inputs, grad_mode
from case_files import CASES_DIR, PEER_DIR, PEER_PREFIX, build, load
from cli_helpers import main_in_process
from export_check import compare, export_case, outcome, same_outcome

# (corpus, program, modes): programs torch.export refuses and graphmend.export exports.
EXPORTED = [
    ("cases", "where/if_else", (False, True)),  # torch.where
    ("cases", "cond/submodule_branch", (False, True)),  # torch.cond over submodules
    ("cases", "where/checked_optional_mask", (False, True)),  # checked speculation
    ("cases", "trap/checked_guard", (False, True)),  # an in-graph assert
    ("peer", "fairseq/encoder_has_pads", (False, True)),
    ("peer", "transformers/bart_encoder_fp16_clamp", (False, True)),
]
CORPUS = {"cases": (CASES_DIR, "cases."), "peer": (PEER_DIR, PEER_PREFIX)}


def _load(corpus, name):
    root, prefix = CORPUS[corpus]
    return load(name, root, prefix)


@pytest.mark.parametrize(
    "corpus,name,strict",
    [(c, n, s) for c, n, modes in EXPORTED for s in modes],
    ids=lambda v: {True: "strict", False: "non-strict"}.get(v, v) if isinstance(v, bool) else v,
)
def test_exports_after_mending_and_computes_what_the_original_does(corpus, name, strict):
    module = _load(corpus, name)
    program, report = export_case(module, strict)
    assert not report.original_exported and report.original_reason
    assert report.exported and program is not None, report.reason
    assert report.mended and not report.reason
    results = compare(module, program)
    assert results.count(True) >= 2  # the inputs drive both sides of the branch
    assert False not in results


def test_the_exported_program_follows_each_side_of_the_branch():
    module = _load("cases", "where/if_else")
    program, _ = export_case(module, strict=False)
    exported = program.module()
    for x in (torch.tensor([1.0, 2.0]), torch.tensor([-1.0, -2.0])):
        assert torch.equal(exported(x), module.ENTRY(x))
    nodes = {node.target for node in program.graph.nodes}
    assert torch.ops.aten.where.self in nodes  # one graph, both sides in it


def test_the_exported_program_compiled_with_inductor_computes_what_the_original_does():
    module = _load("cases", "where/if_else")
    program, _ = export_case(module, strict=True)
    compiled = torch.compile(program.module())
    for index in range(len(module.INPUTS)):
        with grad_mode(module):
            expected = outcome(lambda: build(module)(*fresh_inputs(module, index)))
            got = outcome(lambda: compiled(*fresh_inputs(module, index)))
        assert same_outcome(expected, got)


def test_a_trap_survives_as_an_in_graph_assert_raising_the_originals_exception():
    module = _load("cases", "trap/checked_guard")
    program, report = export_case(module, strict=True)
    assert report.traps == 1
    assert "in-graph assert" in str(report)
    failing = fresh_inputs(module, 1)
    with pytest.raises(RuntimeError) as raised:
        program.module()(*failing)
    original = graphmend.runtime.translate(raised.value)
    with pytest.raises(ValueError) as expected:
        build(module)(*failing)
    assert type(original) is ValueError and str(original) == str(expected.value)


@pytest.mark.parametrize("strict", [False, True], ids=["non-strict", "strict"])
def test_deferred_calls_are_dropped_with_a_warning_naming_them(strict, capsys):
    module = _load("cases", "defer/print_and_branch")
    with pytest.warns(graphmend.ExportSideEffectsDropped, match="print_and_branch.py:6"):
        program, report = graphmend.export(
            module.ENTRY, fresh_inputs(module, 0), strict=strict, report=True
        )
    # Only torch.export's trial of the original prints (non-strict runs its print on a fake
    # tensor); the mended program's deferred call is neither made nor recorded.
    assert capsys.readouterr().out.count("input sum") == (0 if strict else 1)
    assert report.dropped == [f'print("input sum", x.sum()) at {module.__file__}:6']
    assert [d.code for d in report.mended] == ["GM102", "GM101"]
    assert not graphmend.runtime.pending()
    for index in range(len(module.INPUTS)):
        x = fresh_inputs(module, index)[0]
        assert torch.equal(program.module()(x), x * 2 if x.sum() > 0 else x * -1)
    assert capsys.readouterr().out == ""  # the exported program does not print


def test_a_model_that_still_cannot_export_names_exports_reason():
    module = _load("cases", "cond/decline_untraceable_helper")
    with pytest.raises(graphmend.ExportBlocked) as blocked:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graphmend.export(build(module), fresh_inputs(module, 0), strict=True)
    report = blocked.value.report
    assert not report.exported and report.declined
    assert report.reason.startswith("Unsupported: Data-dependent branching")
    assert "decline_untraceable_helper.py:" in report.reason
    assert "still blocked" in str(report)
    assert isinstance(blocked.value.__cause__, Exception)  # export's own error


def test_a_program_that_exports_as_it_is_is_not_mended():
    module = _load("cases", "static/is_none")
    program, report = export_case(module, strict=False)
    assert report.original_exported and report.exported and not report.mended
    assert "nothing mended" in str(report)
    assert False not in compare(module, program)


@pytest.mark.parametrize("strict", [False, True], ids=["non-strict", "strict"])
def test_a_rerun_guard_declines(strict):
    # A failed rerun_if is answered by the compile boundary running the call again eagerly;
    # an exported program has no boundary: the original's `if` stays, and export stops there.
    module = _load("cases", "trap/rerun_each_form")
    program, report = export_case(module, strict)
    assert program is None and not report.exported
    assert "data-dependent" in report.reason.lower()
    assert "rerun_each_form.py:" in report.reason


class _CountsThenChecks(torch.nn.Module):
    """A guard after an in-place change of a buffer: an exported program writes the buffer
    back at its end, so an in-graph assert failing after the change would lose it."""

    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        self.calls.add_(1)
        if (x < 0).any():
            raise ValueError("negative input")
        return x * 2


@pytest.mark.parametrize("strict", [False, True], ids=["non-strict", "strict"])
def test_a_guard_after_a_state_change_declines(strict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program, report = graphmend.export(
            _CountsThenChecks(), (torch.ones(3),), strict=strict, report=True
        )
    assert [d.code for d in report.mended] == ["GM105"]
    assert program is None and not report.exported
    if strict:  # the guard's `if`, run eagerly: export names its line
        line = _CountsThenChecks.forward.__code__.co_firstlineno + 2
        assert report.reason.endswith(f"test_export.py:{line})")
    else:
        assert "could not guard on data-dependent" in report.reason.lower()


def test_a_guard_with_no_state_change_before_it_is_an_assert_in_the_non_strict_graph():
    module = _load("cases", "trap/checked_guard")
    program, report = export_case(module, strict=False)
    assert report.traps == 1
    with pytest.raises(RuntimeError) as raised:
        program.module()(*fresh_inputs(module, 1))
    assert type(graphmend.runtime.translate(raised.value)) is ValueError


def test_fake_tensors_count_as_plain_tensors_only_while_exporting():
    from torch._subclasses.fake_tensor import FakeTensorMode

    from graphmend.runtime.tracing import _plain_tensor

    with FakeTensorMode() as mode:
        fake = mode.from_tensor(torch.ones(2))
    assert not _plain_tensor(fake)  # a FakeTensor outside export is a subclass like any
    seen = []

    class Probe(torch.nn.Module):
        def forward(self, x):
            seen.append(_plain_tensor(x))
            return x + 1

    torch.export.export(Probe(), (torch.ones(2),), strict=False)
    assert seen == [True]


def test_a_class_is_refused():
    with pytest.raises(TypeError, match="not a class"):
        graphmend.export(torch.nn.Linear, (torch.ones(2),))


def test_explain_export_reports_each_mode(tmp_path, capsys, monkeypatch):
    (tmp_path / "gate.py").write_text(
        "import torch\n\n"
        "def gate(x):\n"
        "    if x.sum() > 0:\n"
        "        return x * 2\n"
        "    return x - 1\n\n"
        "def example():\n"
        "    return gate, (torch.ones(3),)\n"
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(
        ["explain", "gate.py:example", "--export", "--output-format", "json", "-q"], capsys
    )
    assert status == 0
    modes = json.loads(out)["export"]
    assert [m["mode"] for m in modes] == ["non-strict", "strict"]
    for mode in modes:
        assert not mode["original_exported"] and mode["exported"]
        assert "data-dependent" in mode["original_reason"].lower()
        assert [(s["line"], s["code"]) for s in mode["mended"]] == [(4, "GM101")]
    status, out, _ = main_in_process(
        ["explain", "gate.py:example", "--export", "strict", "-q"], capsys
    )
    assert status == 0
    assert out.startswith("graphmend export (strict): the original does not export")
    assert "exported after mending 1 site(s)" in out


def test_explain_export_exits_1_naming_what_still_blocks(tmp_path, capsys, monkeypatch):
    (tmp_path / "bump.py").write_text(
        "import torch\n\n"
        "def bump(x):\n"
        "    if x.sum() > 0:\n"
        "        x.add_(1)\n"
        "    return x\n\n"
        "def example():\n"
        "    return bump, (torch.ones(3),)\n"
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(
        ["explain", "bump.py:example", "--export", "strict", "-q"], capsys
    )
    assert status == 1
    assert "still blocked after mending 0 site(s): Unsupported: Data-dependent branching" in out
    assert "bump.py:4)" in out
