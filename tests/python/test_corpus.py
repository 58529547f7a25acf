"""The differential corpus test: GraphMend and CPython's ast agree on every file of the stdlib,
torch and transformers (see corpus.py), for the running interpreter's grammar and for 3.12
(with CPython 3.12 as the oracle, when it is installed).

Limit with --corpus-limit N / GRAPHMEND_CORPUS_LIMIT, restrict with --corpus-package NAME."""

from __future__ import annotations

import sys

import pytest

import corpus

RUNNING = tuple(sys.version_info[:2])


@pytest.mark.parametrize("version", [None, (3, 12)], ids=["running", "py312"])
def test_corpus_matches_cpython(version, corpus_limit, corpus_packages, capsys):
    report_path = corpus.DEFAULT_REPORT
    if version is not None:
        if version == RUNNING:
            pytest.skip("the running interpreter's grammar is checked by the first case")
        if corpus.find_python(version) is None:
            pytest.skip(f"CPython {version[0]}.{version[1]} is not installed")
        report_path = corpus.DEFAULT_REPORT.with_name(f"corpus_report_{version[0]}{version[1]}.txt")
        # The other grammar is checked on its own stdlib plus torch and transformers; the
        # rest of site-packages only under the running grammar, to keep CI short.
        corpus_packages = corpus_packages or ("stdlib", *corpus.SEPARATE_PACKAGES)
    results, _ = corpus.run(
        limit=corpus_limit, packages=corpus_packages, report_path=report_path, version=version
    )
    totals = corpus.totals_line(results)
    with capsys.disabled():
        grammar = "%d.%d" % (version or RUNNING)
        print(f"\n[{grammar}] {totals}\nreport: {report_path}")
    assert results, "the corpus is empty"
    failing = [r for r in results if r.status in corpus.FAILING]
    if failing:
        shown = "\n".join(
            f"  {r.status}: {r.path}\n      {r.detail.splitlines()[0] if r.detail else ''}"
            for r in failing[:40]
        )
        more = f"\n  ... and {len(failing) - 40} more" if len(failing) > 40 else ""
        raise AssertionError(
            f"{totals}\n{len(failing)} files disagree (full report: {report_path}):\n{shown}{more}"
        )
