"""``graphmend fix`` → ``graphmend check`` → ``graphmend fix --check`` on every case and peer
program: fixed code checks clean. The sites ``check`` still reports are sites the original
left declined (GraphMend never flags the code it wrote: the original it keeps as the fallback
of a predicated statement is shown only with ``--show-suppressed``), and fixing again
changes nothing."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest

from case_files import CASES_DIR, PEER_DIR
from cli_helpers import graphmend


def _findings(folder, *flags):
    run = graphmend("check", ".", "--output-format", "json", *flags, cwd=folder)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)["findings"]


def _by_file_and_code(findings, statuses):
    return Counter((f["path"], f["code"]) for f in findings if f["status"] in statuses)


@pytest.mark.parametrize("corpus", [CASES_DIR, PEER_DIR], ids=["cases", "peer"])
def test_fixed_code_checks_clean_and_fixes_to_itself(tmp_path, corpus):
    original, fixed = tmp_path / "original", tmp_path / "fixed"
    shutil.copytree(corpus, original)
    shutil.copytree(corpus, fixed)
    before = _findings(original)
    assert any(f["status"] == "fixable" for f in before)  # the round trip has work to do

    run = graphmend("fix", ".", cwd=fixed)
    assert run.returncode == 0, run.stdout + run.stderr
    after = _findings(fixed)
    assert [f for f in after if f["status"] == "fixable"] == []
    # Every site still reported was reported as left by the original's check.
    new = _by_file_and_code(after, ("declined", "out-of-scope")) - _by_file_and_code(
        before, ("declined", "out-of-scope")
    )
    assert not new, f"fixed code reports sites the original did not leave: {dict(new)}"
    assert all(f["status"] != "suppressed" for f in after)

    # GraphMend's own fallbacks are there, and shown only on request, with why.
    shown = _findings(fixed, "--show-suppressed")
    fallbacks = [f for f in shown if f["status"] == "suppressed"]
    assert fallbacks and all(f["reason"]["id"] == "predicated-fallback" for f in fallbacks)

    again = graphmend("fix", "--check", ".", cwd=fixed)
    assert (again.returncode, again.stdout) == (0, "would fix 0 sites in 0 files\n"), again.stderr
