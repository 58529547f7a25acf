"""The rewrite test cases: tests/cases/<folder>/NAME.py, one driver for all of them (the case
schema is tests/cases/README.md).

For each case, whatever applies:

* a case with a golden NAME.py.mended beside it: ``mend_source`` over the file gives that
  text byte for byte (``pytest --update-goldens`` rewrites it); the text compiles and mending
  it again changes nothing (no internal GM9xx diagnostic); the line map has one entry per
  mended line, each a line of the original; the break sites reported for the file are
  EXPECTED_TAGS, the declined ones for the reasons in EXPECTED_DECLINES; and, where the case
  runs, the mended text itself behaves like the original and has the mended break count;
* a case that runs (it defines ENTRY): the break sites ``graphmend.mend`` reports for the
  object under test, the break and graph counts of the original and of the mended object,
  and the behaviour of the mended object against the original's, for every input: eager,
  compiled with ``graphmend.compile(..., backend="eager")`` and with Inductor (the default
  backend, marked ``inductor``): the returned value or raised exception, printed text, log
  records and warnings; a module case's mended copy shares the original's state; a GRAD
  case's gradients match.

Cases run under torch.no_grad() (inference) unless they set GRAD = True.
"""

from __future__ import annotations


import pytest

import graphmend
from graphmend import options
from behaviour import (  # noqa: F401 (fixtures)
    fresh_dynamo,
    log_everything,
    mended_text_module,
    pending_params,
    assert_same_behaviour,
    assert_same_gradients,
    behind_boundary,
    breaks_of,
    fresh_inputs,
    never_more_breaks,
    observe,
)
from case_files import CASES_DIR, build, case_ids, golden_of, load, path_of, runs

CASES = case_ids()
MODULES = {case: load(case) for case in CASES}
RUNNING = [case for case in CASES if runs(MODULES[case])]
GOLDEN = [case for case in CASES if golden_of(case).exists()]
GOLDEN_RUNNING = [case for case in GOLDEN if case in RUNNING]
MODULE_CASES = [case for case in RUNNING if isinstance(MODULES[case].ENTRY, type)]
GRAD_CASES = [case for case in RUNNING if getattr(MODULES[case], "GRAD", False)]

# Folders beside one per rewrite: [Cond] (emitted by [Where]), [Moe] (by [MaskedReduce]), no
# break at all, and breaks no rewrite handles.
OTHER_FOLDERS = {"cond", "moe", "masked_assign", "static", "out_of_scope"}

# The expectation fields of the schema (a misspelt one would be ignored), and those of the
# two formats it replaced.
EXPECTED_FIELDS = {"EXPECTED_BREAKS", "EXPECTED_GRAPHS", "EXPECTED_TAGS", "EXPECTED_DECLINES"}
OLD_FIELDS = {"BREAKS", "REWRITE", "DECLINES"}

# Checks that do not hold yet, as {(case, check): reason}; check is the name of a test below
# less its "test_" prefix. The marks are strict: a check that starts passing fails until its
# entry is removed.
PENDING = {
    ("where/decline_live_sets", "tags"): "mender: a variable bound to None before the if is "
    "merged (where_ok keeps the branch at run time) instead of declined",
    ("where/masked_fill_half_out_of_range", "mended_inductor_behaves_like_original"): "torch: "
    "Inductor stores 1e5 into float16 as inf where eager masked_fill_ raises (plain "
    "torch.compile of the original does the same; the check keeps the original if)",
}


def params(cases, check):
    return pending_params(cases, check, PENDING)


def mend_file(case):
    path = path_of(case)
    return graphmend.mend_source(path.read_text(encoding="utf-8"), filename=path.name)


def assert_sites(diagnostics, module):
    """The reported break sites are EXPECTED_TAGS, and the declined ones, in source order,
    have the codes and reasons of EXPECTED_DECLINES."""
    tags = sorted((d.code, d.rewrite if d.fixed else "declined") for d in diagnostics)
    assert tags == list(module.EXPECTED_TAGS)
    declined = sorted((d for d in diagnostics if not d.fixed), key=lambda d: d.line)
    expected = list(getattr(module, "EXPECTED_DECLINES", []))
    assert [d.code for d in declined] == [code for code, _ in expected], declined
    for site, (_, reason) in zip(declined, expected):
        assert reason in site.message, (site, reason)


# ---------------------------------------------------------------------------------------------
# The suite's own shape.


def test_suite_is_large_enough_and_covers_every_tag():
    assert len(CASES) >= 90 and len(GOLDEN) >= 30
    codes = {code for case in CASES for code, _ in MODULES[case].EXPECTED_TAGS}
    assert {f"GM10{i}" for i in range(1, 9)} <= codes
    rewrites = {rewrite for case in CASES for _, rewrite in MODULES[case].EXPECTED_TAGS}
    assert {"where", "cond", "defer", "trap", "moe", "declined"} <= rewrites


def test_one_folder_per_rewrite():
    folders = {case.split("/")[0] for case in CASES}
    assert set(options.REWRITES) <= folders, "each rewrite has a folder of cases"
    assert folders <= set(options.REWRITES) | OTHER_FOLDERS


def test_every_golden_has_its_case():
    orphans = [p.name for p in CASES_DIR.glob("*/*.py.mended") if not p.with_suffix("").exists()]
    assert not orphans


def test_pending_names_real_checks():
    checks = {name[len("test_") :] for name in globals() if name.startswith("test_")}
    for case, check in PENDING:
        assert case in CASES and check in checks, (case, check)


@pytest.mark.parametrize("case", CASES)
def test_case_module_shape(case):
    module = MODULES[case]
    assert module.__doc__, "each case says what it covers"
    names = set(vars(module))
    assert not names & OLD_FIELDS, "fields of the old formats: see tests/cases/README.md"
    unknown = {n for n in names if n.startswith("EXPECTED_")} - EXPECTED_FIELDS
    assert not unknown, unknown
    assert list(module.EXPECTED_TAGS) == sorted(module.EXPECTED_TAGS)
    declined = sorted(code for code, rewrite in module.EXPECTED_TAGS if rewrite == "declined")
    assert sorted(code for code, _ in getattr(module, "EXPECTED_DECLINES", [])) == declined, (
        "each declined site has its reason in EXPECTED_DECLINES"
    )
    if runs(module):
        assert isinstance(module.INPUTS, list) and module.INPUTS
        assert all(isinstance(args, tuple) for args in module.INPUTS)
        original, mended = module.EXPECTED_BREAKS
        assert 0 <= mended <= original
        assert len(module.EXPECTED_GRAPHS) == 2
    else:
        # A case that does not run checks its golden text; nothing else would read it.
        assert golden_of(case).exists(), "a case without ENTRY needs a golden"
        assert not names & {"INPUTS", "GRAD", "EXPECTED_BREAKS", "EXPECTED_GRAPHS"}


# ---------------------------------------------------------------------------------------------
# The mended text: golden, fixed point, line map, the sites reported for the file.


@pytest.mark.parametrize("case", params(GOLDEN, "golden_text"))
def test_golden_text(case, update_goldens):
    result = mend_file(case)
    assert result.error is None, result.error
    golden = golden_of(case)
    if update_goldens:
        golden.write_text(result.source, encoding="utf-8")
    assert golden.exists(), f"{golden.name} is missing: run pytest --update-goldens"
    assert result.source == golden.read_text(encoding="utf-8")
    # Declining leaves the text as it was; only a declined [Defer] call is still edited (it
    # goes through call_now, which keeps the output order).
    if not any(d.fixed or d.rewrite == "defer" for d in result.diagnostics):
        assert result.source == path_of(case).read_text(encoding="utf-8")


@pytest.mark.parametrize("case", params(GOLDEN, "mended_text_compiles_and_is_a_fixed_point"))
def test_mended_text_compiles_and_is_a_fixed_point(case):
    result = mend_file(case)
    compile(result.source, path_of(case).name, "exec")
    again = graphmend.mend_source(result.source, filename=path_of(case).name)
    assert again.source == result.source
    assert not again.changed
    assert not [d for d in again.diagnostics if d.fixed]
    assert not [d for d in again.diagnostics if d.code.startswith("GM9")]
    assert not [d for d in result.diagnostics if d.code.startswith("GM9")], result.diagnostics


@pytest.mark.parametrize("case", params(GOLDEN, "line_map"))
def test_line_map(case):
    original = path_of(case).read_text(encoding="utf-8")
    result = mend_file(case)
    mended_lines = result.source.split("\n")
    assert len(result.line_map) == len(mended_lines)
    original_count = len(original.split("\n"))
    assert all(1 <= line <= original_count for line in result.line_map)
    assert list(result.line_map) == sorted(result.line_map)
    # Lines no edit touched map to their own text.
    data = original.encode("utf-8")
    touched = set()
    for begin, end, _ in result.edits:
        first = data.count(b"\n", 0, begin) + 1
        touched.update(range(first, data.count(b"\n", 0, end) + 2))
    original_lines = original.split("\n")
    for index, text in enumerate(mended_lines):
        if result.line_map[index] not in touched:
            assert original_lines[result.line_map[index] - 1] == text, (index + 1, text)


@pytest.mark.parametrize("case", params(GOLDEN, "file_tags"))
def test_file_tags(case):
    """The break sites mend_source reports for the whole file (its entry points found in the
    text), as for EXPECTED_TAGS and EXPECTED_DECLINES."""
    assert_sites(mend_file(case).diagnostics, MODULES[case])


def text_module(case):
    """The case's file mended as the import hook mends it (the golden's text, but for the
    file's path in deferred calls' sites), under the case's module name."""
    return mended_text_module(path_of(case), MODULES[case].__name__)


@pytest.mark.parametrize("case", params(GOLDEN_RUNNING, "mended_text_behaves_like_original"))
def test_mended_text_behaves_like_original(case):
    module = MODULES[case]
    original = build(module)
    mended = build(text_module(case))
    compiled = behind_boundary(build(text_module(case)))
    for index in range(len(module.INPUTS)):
        expected = observe(module, original, index)
        for actual, close in ((mended, False), (compiled, _rounds(module))):
            behaviour = observe(module, actual, index)
            assert_same_behaviour(expected, behaviour, classes_by_name=True, close=close)


@pytest.mark.parametrize("case", params(GOLDEN_RUNNING, "mended_text_breaks"))
def test_mended_text_breaks(case):
    module = MODULES[case]
    expected = (module.EXPECTED_BREAKS[1], module.EXPECTED_GRAPHS[1])
    assert breaks_of(module, build(text_module(case))) == expected


# ---------------------------------------------------------------------------------------------
# The original program: these hold with plain torch.


@pytest.mark.parametrize("case", params(RUNNING, "original_breaks"))
def test_original_breaks(case):
    module = MODULES[case]
    expected = (module.EXPECTED_BREAKS[0], module.EXPECTED_GRAPHS[0])
    assert breaks_of(module, build(module)) == expected


def test_no_case_expects_more_breaks_after_mending():
    """A rewrite never adds a break: every case's mended counts (pinned against Dynamo by
    test_mended_breaks and test_mended_text_breaks) are at most its original counts."""
    more = [
        case
        for case in RUNNING
        if not never_more_breaks(*zip(MODULES[case].EXPECTED_BREAKS, MODULES[case].EXPECTED_GRAPHS))
    ]
    assert more == []


@pytest.mark.parametrize("case", params(RUNNING, "original_runs_on_every_input"))
def test_original_runs_on_every_input(case):
    """Sanity of the suite: the original runs on every input (raising only by design)."""
    module = MODULES[case]
    obj = build(module)
    for index in range(len(module.INPUTS)):
        observe(module, obj, index)


# ---------------------------------------------------------------------------------------------
# The mended object: graphmend.mend and graphmend.compile.


@pytest.mark.parametrize("case", params(RUNNING, "tags"))
def test_tags(case):
    """The break sites mend(obj) reports for the functions it reaches (mend_source's
    diagnostics), each as (code, rewrite) or (code, "declined")."""
    module = MODULES[case]
    _, report = graphmend.mend(build(module), report=True)
    assert_sites(report.diagnostics, module)


@pytest.mark.parametrize("case", params(RUNNING, "mended_breaks"))
def test_mended_breaks(case):
    module = MODULES[case]
    mended = graphmend.mend(build(module))
    expected = (module.EXPECTED_BREAKS[1], module.EXPECTED_GRAPHS[1])
    assert breaks_of(module, mended) == expected


@pytest.mark.parametrize("case", params(RUNNING, "mended_eager_behaves_like_original"))
def test_mended_eager_behaves_like_original(case):
    module = MODULES[case]
    original = build(module)
    mended = graphmend.mend(build(module))  # its own instance: no state shared with original
    for index in range(len(module.INPUTS)):
        expected = observe(module, original, index)
        actual = observe(module, mended, index)
        assert_same_behaviour(expected, actual)


def _compiled_behaves_like_original(case, close=False, **compile_kwargs):
    module = MODULES[case]
    original = build(module)
    compiled = graphmend.compile(build(module), **compile_kwargs)
    for index in range(len(module.INPUTS)):
        expected = observe(module, original, index)
        actual = observe(module, compiled, index)
        assert_same_behaviour(expected, actual, close=close)


def _rounds(module):
    """A ROUNDING case's compiled results compare within float32 rounding (see the README)."""
    return getattr(module, "ROUNDING", False)


@pytest.mark.parametrize("case", params(RUNNING, "mended_compiled_behaves_like_original"))
def test_mended_compiled_behaves_like_original(case):
    _compiled_behaves_like_original(case, close=_rounds(MODULES[case]), backend="eager")


@pytest.mark.inductor
@pytest.mark.parametrize("case", params(RUNNING, "mended_inductor_behaves_like_original"))
def test_mended_inductor_behaves_like_original(case):
    """What users run: graphmend.compile with its default backend, Inductor (which fuses
    float arithmetic differently from eager: tensors compare within rounding). A RANDOM case
    compiles under Inductor's fallback_random: Inductor's own generator draws other numbers
    than eager's under the same seed (plain torch.compile too), eager's draws them in order."""
    import torch._inductor.config

    random = getattr(MODULES[case], "RANDOM", False)
    with torch._inductor.config.patch(fallback_random=random):
        _compiled_behaves_like_original(case, close=True)


@pytest.mark.parametrize("case", params(MODULE_CASES, "mended_module_keeps_state"))
def test_mended_module_keeps_state(case):
    original = build(MODULES[case])
    mended = graphmend.mend(original)
    assert isinstance(mended, type(original))
    a, b = original.state_dict(), mended.state_dict()
    assert list(a) == list(b) and all(a[k].data_ptr() == b[k].data_ptr() for k in a)


@pytest.mark.parametrize("case", params(GRAD_CASES, "mended_gradients_match_original"))
def test_mended_gradients_match_original(case):
    """Backward through the compiled mended program gives the original's gradients, for the
    inputs and the parameters (torch.cond and torch.where differentiate each branch)."""
    module = MODULES[case]
    assert_same_gradients(module, build(module), graphmend.compile(build(module), backend="eager"))
