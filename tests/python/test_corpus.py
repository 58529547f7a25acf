"""The differential corpus test: GraphMend and CPython's ast agree on every file of the stdlib,
torch and transformers (see corpus.py). Limit with --corpus-limit N / GRAPHMEND_CORPUS_LIMIT."""

from __future__ import annotations

import corpus


def test_corpus_matches_cpython(corpus_limit, corpus_packages, capsys):
    results, report = corpus.run(limit=corpus_limit, packages=corpus_packages)
    totals = corpus.totals_line(results)
    with capsys.disabled():
        print(f"\n{totals}\nreport: {corpus.DEFAULT_REPORT}")
    assert results, "the corpus is empty"
    failing = [r for r in results if r.status in corpus.FAILING]
    if failing:
        shown = "\n".join(f"  {r.status}: {r.path}\n      {r.detail.splitlines()[0] if r.detail else ''}"
                          for r in failing[:40])
        more = f"\n  ... and {len(failing) - 40} more" if len(failing) > 40 else ""
        raise AssertionError(
            f"{totals}\n{len(failing)} files disagree (full report: {corpus.DEFAULT_REPORT}):\n"
            f"{shown}{more}")
