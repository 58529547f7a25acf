"""The code table (graphmend/cli/codes.py) against the core and docs/DIAGNOSTICS.md, the reasons
(src/diag/reasons.def) against their hints and docs and the declines the rewrites actually
give, and ``graphmend rule``."""

from __future__ import annotations

import json
import re

import pytest

import graphmend
from cli_helpers import main_in_process
from conftest import REPO_ROOT
from graphmend import _core
from graphmend.cli.codes import CODES, HINTS, REASONS_BY_REWRITE, codes_matching

DOCS = (REPO_ROOT / "docs" / "DIAGNOSTICS.md").read_text(encoding="utf-8")


def test_every_core_code_is_described_and_every_break_code_has_a_heading():
    assert list(CODES) == [code for code, _ in _core.CODES]
    headings = dict(re.findall(r"^### (GM\d{3}) (.+)$", DOCS, re.M))
    for info in CODES.values():
        if info.status_class in ("break", "out-of-scope", "note"):
            assert headings.get(info.code) == info.heading, info.code
            anchor = info.url.split("#", 1)[1]
            assert anchor.startswith(info.code.lower() + "-")
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", info.name)
    assert len({info.name for info in CODES.values()}) == len(CODES)


# Reasons with nothing for the user to do: the mender's bookkeeping, a site no rewrite
# handles (its code's own hint speaks), or a decline another fix already accounts for.
_NO_HINT_NEEDED = {
    "suppressed",
    "out-of-scope",
    "not-in-profile",
    "no-location",
    "not-data-dependent",
    "predicated-fallback",
    "other",
}


def test_every_reason_has_an_owner_a_hint_and_documentation():
    section = DOCS.split("\n## Decline reasons\n", 1)[1].split("\n## ", 1)[0]
    for reason_id, owner, hint in _core.REASONS:
        assert owner in ("",) + tuple(_core.REWRITES), reason_id
        assert hint or reason_id in _NO_HINT_NEEDED, f"{reason_id}: no hint in src/diag/reasons.def"
        assert f"`{reason_id}`" in section, f"{reason_id}: not in DIAGNOSTICS.md's Decline reasons"
    assert list(HINTS) == list(_core.REASON_IDS) == [row[0] for row in _core.REASONS]


def test_fixed_by_is_the_owner_in_codes_def():
    for code, info in CODES.items():
        assert info.fixed_by == _core.FIXED_BY.get(code, ""), code
        if info.status_class == "break":
            assert info.fixed_by in _core.REWRITES, code
        else:
            assert info.fixed_by == "", code


def _case_sources():
    for folder in ("tests/cases", "tests/golden", "tests/python/programs", "examples"):
        yield from sorted((REPO_ROOT / folder).rglob("*.py"))


def test_the_rewrites_declines_all_have_an_id():
    """Every decline the rewrites give on the project's own cases names a row of
    src/diag/reasons.def: a decline reported as "other" needs a row of its own there."""
    unmatched = set()
    seen = set()
    for path in _case_sources():
        result = graphmend.mend_source(path.read_bytes(), str(path), trace_all=True)
        for d in result.diagnostics:
            if d.code.startswith("GM1") and not d.fixed:
                seen.add(d.reason_id)
                if d.reason_id == "other":
                    unmatched.add(d.reason)
    assert not unmatched, sorted(unmatched)
    assert {"not-pure", "mutates-state", "out-of-scope"} <= seen


def test_selectors():
    assert codes_matching("GM10") == (
        "GM101",
        "GM102",
        "GM103",
        "GM104",
        "GM105",
        "GM106",
        "GM107",
        "GM108",
        "GM109",
    )
    assert codes_matching("print-call") == ("GM102",)
    assert "GM190" not in codes_matching("GM1") and codes_matching("GM190") == ("GM190",)
    assert codes_matching("GM999") == ()


def test_rule_text_and_json(capsys):
    status, out, _ = main_in_process(["rule", "GM101"], capsys)
    assert status == 0
    assert out.startswith("GM101 data-dependent-branch: data-dependent branch\n")
    assert "GB0170" in out and "Fixed by: [where]" in out and "not-tensor:" in out
    # every reason [Where] gives, with its hint, not a hand-kept selection
    for reason_id in REASONS_BY_REWRITE["where"]:
        if HINTS[reason_id]:
            assert f"  {reason_id}: {HINTS[reason_id]}\n" in out
    assert "maybe-unbound:" in out and "masked-has-else:" in out
    status, out, _ = main_in_process(["rule", "print-call"], capsys)
    assert out.startswith("GM102 print-call")
    status, out, _ = main_in_process(["rule", "--all", "--output-format", "json"], capsys)
    table = json.loads(out)
    assert [row["code"] for row in table] == list(CODES)
    assert table[1]["name"] == "tokenize-error" and set(table[0]) == {
        "code",
        "name",
        "summary",
        "status_class",
        "gb_ids",
        "fixed_by",
        "url",
    }
    status, _, err = main_in_process(["rule", "GM777"], capsys)
    assert status == 2 and "unknown code 'GM777'" in err


@pytest.mark.parametrize("code", ["GM105", "GM106"])
def test_rule_names_what_to_do(capsys, code):
    _, out, _ = main_in_process(["rule", code], capsys)
    assert ("What to do:" in out) == (code == "GM106")
    assert f"# graphmend: ignore[{code}]" in out
