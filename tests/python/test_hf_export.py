"""The export survey of the transformers classes (bench/models/hf_export.py) as `make
export-models` runs it, on one class: the record says whether the original and the mended
model export, strict and non-strict, and compares the exported program's outputs with the
eager model's; a second run resumes; the report counts what the records say."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("transformers")

from conftest import REPO_ROOT  # noqa: E402

SCRIPT = REPO_ROOT / "bench" / "models" / "hf_export.py"
sys.path.insert(0, str(SCRIPT.parent))
import hf_export  # noqa: E402


def _run(out) -> None:
    command = [sys.executable, str(SCRIPT), "run", "--classes", "BertModel", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def test_a_class_exports_both_ways_with_equal_outputs_and_resumes(tmp_path):
    out = tmp_path / "export.jsonl"
    _run(out)
    _run(out)  # resumes: the class is not run again
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["class"] for r in records] == ["BertModel"]
    record = records[0]
    assert record["status"] == "ok", record
    for mode, _ in hf_export.MODES:
        entry = record[mode]
        assert entry["before"] and entry["after"], entry
        assert entry["equal"] is True, entry


def _record(name, non_strict, strict):
    def entry(before, after, equal):
        return {
            "before": before,
            "after": after,
            "mended_program": after,
            "equal": equal,
            "reason_after": ""
            if after
            else "UserError: Could not guard on data-dependent expression u0",
        }

    return {
        "class": name,
        "modality": "text",
        "status": "ok",
        "non-strict": entry(*non_strict),
        "strict": entry(*strict),
    }


def test_the_report_counts_gains_losses_and_equal_outputs():
    records = [
        _record("A", (True, True, True), (False, True, True)),
        _record("B", (False, False, False), (False, False, False)),
        _record("C", (True, True, False), (True, True, True)),
        {"class": "D", "status": "skipped", "reason": "does not build"},
    ]
    rows = {line.split(" | ")[0].strip("| "): line for line in hf_export.table(records)[2:]}
    assert rows["non-strict"].split(" | ")[1:] == ["3", "2", "2", "0", "0", "2", "1 of 2 |"]
    assert rows["strict"].split(" | ")[1:] == ["3", "1", "2", "1", "0", "2", "2 of 2 |"]
    assert "data-dependent expression u0 (1)" in hf_export.reasons(records)[0]
