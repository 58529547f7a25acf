"""torch.export before and after mending, on the case models (tests/cases) and the peer
corpus (tests/peer): for each program with ENTRY and INPUTS, ``graphmend.export`` on
INPUTS[0], strict and non-strict (whether the original exports, whether the mended one
does, export's reason when not), then the exported program against the original, eagerly,
on every input of INPUTS that export's guards admit.

    python bench/export_survey.py [--corpus cases,peer] [--only TEXT] [--json FILE]

(`make export-survey`.) Prints one line per program and mode, then the totals.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))

from case_files import CASES_DIR, PEER_DIR, PEER_PREFIX, case_ids, load, runs  # noqa: E402
from export_check import compare, export_case  # noqa: E402

CORPORA = {"cases": (CASES_DIR, "cases."), "peer": (PEER_DIR, PEER_PREFIX)}


def survey_one(module, strict):
    program, report = export_case(module, strict)
    entry = {
        "before": report.original_exported,
        "after": report.exported,
        "reason_before": report.original_reason,
        "reason_after": report.reason,
        "mended_program": bool(report.mended),
        "dropped": len(report.dropped),
        "traps": report.traps,
    }
    if program is not None:
        results = compare(module, program)
        entry["inputs"] = len(results)
        entry["admitted"] = sum(r is not None for r in results)
        entry["equal"] = all(r is not False for r in results)
    return entry


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="cases,peer")
    parser.add_argument("--only", default="")
    parser.add_argument("--json")
    options = parser.parse_args(argv)
    results = {}
    started = time.time()
    for corpus in options.corpus.split(","):
        root, prefix = CORPORA[corpus]
        for name in case_ids(root):
            if options.only and options.only not in name:
                continue
            module = load(name, root, prefix)
            if not runs(module):
                continue
            for strict in (False, True):
                mode = "strict" if strict else "non-strict"
                entry = survey_one(module, strict)
                results.setdefault(corpus, {}).setdefault(name, {})[mode] = entry
                print(f"{corpus}/{name} {mode}: {_line(entry)}", flush=True)
    totals = _totals(results)
    for line in _total_lines(totals):
        print(line)
    print(f"({time.time() - started:.0f} s)")
    if options.json:
        Path(options.json).write_text(json.dumps({"totals": totals, "programs": results}, indent=1))


def _line(entry):
    if not entry["after"]:
        return f"blocked: {entry['reason_after'][:140]}"
    state = "the original exports" if entry["before"] else "the original does not export"
    state += "; the mended program exported" if entry["mended_program"] else "; exported as it is"
    equal = "equal" if entry["equal"] else "NOT EQUAL"
    return f"{state}; {equal} on {entry['admitted']}/{entry['inputs']} inputs"


def _totals(results):
    totals = {}
    for corpus, programs in results.items():
        for mode in ("non-strict", "strict"):
            entries = [p[mode] for p in programs.values()]
            totals[f"{corpus} {mode}"] = {
                "programs": len(entries),
                "before": sum(e["before"] for e in entries),
                "after": sum(e["after"] for e in entries),
                "mended_to_export": sum(e["after"] and not e["before"] for e in entries),
                "mended_program": sum(e["after"] and e["mended_program"] for e in entries),
                "equal": sum(e.get("equal", False) for e in entries),
                "not_equal": sum(e["after"] and not e["equal"] for e in entries),
            }
    return totals


def _total_lines(totals):
    for key, t in totals.items():
        yield (
            f"{key}: {t['programs']} programs; export before mending {t['before']}, after "
            f"{t['after']} (+{t['mended_to_export']}; the mended program in "
            f"{t['mended_program']}); exported program equal to eager on every "
            f"admitted input: {t['equal']}, not equal: {t['not_equal']}"
        )


if __name__ == "__main__":
    main()
