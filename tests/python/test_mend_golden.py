"""Golden tests of the mender's emitted source: tests/golden/mend/NAME.py -> NAME.py.mended.

Each NAME.py is a small module with one family of break shapes ([Defer], [Trap]; the
[Where] programs, where_*.py, are checked by test_where.py, which also runs them). The test
mends it with ``graphmend.mend_source(text, filename="NAME.py")`` and checks that:

* the result equals NAME.py.mended byte for byte;
* the mended text compiles, and mending it again changes nothing (no further edits and no
  internal GM9xx diagnostic);
* the line map has one entry per mended line, each a line of the original.

``pytest --update-goldens`` rewrites the .mended files from GraphMend's current output
(review the diff: unlike the ast dumps, these goldens are GraphMend's own output).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import graphmend

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden" / "mend"
CASES = sorted(p for p in GOLDEN_DIR.glob("*.py") if not p.name.startswith("where_"))


def mend(path: Path) -> graphmend.MendResult:
    return graphmend.mend_source(path.read_text(encoding="utf-8"), filename=path.name)


def test_cases_exist():
    assert CASES, f"no golden mend cases in {GOLDEN_DIR}"


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_mended_text(case: Path, update_goldens: bool):
    result = mend(case)
    assert result.error is None, result.error
    golden = case.with_name(case.name + ".mended")
    if update_goldens:
        golden.write_text(result.source, encoding="utf-8")
    assert golden.exists(), f"{golden.name} is missing: run pytest --update-goldens"
    assert result.source == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_mended_text_compiles_and_is_a_fixed_point(case: Path):
    result = mend(case)
    compile(result.source, case.name, "exec")
    again = graphmend.mend_source(result.source, filename=case.name)
    assert again.source == result.source
    assert not again.changed
    assert not [d for d in again.diagnostics if d.code.startswith("GM9")]
    assert not [d for d in result.diagnostics if d.code.startswith("GM9")], result.diagnostics


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_line_map(case: Path):
    original = case.read_text(encoding="utf-8")
    result = mend(case)
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
