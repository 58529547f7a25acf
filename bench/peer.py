"""The peer corpus (tests/peer: programs re-written from real public code) measured:
for each program, the graph breaks of plain torch.compile and of the mended program, and
whether the mended program behaves as the original on every input.

    python bench/peer.py [--only NAME,...] [--json bench/peer-results.json] [--out docs/PEER.md]

(`make peer`.) Per program, on INPUTS[0] and with every logging level enabled:
``graphmend.explain``'s breaks (a frame Dynamo gave up on counts its break) and graph count
of the original and of ``graphmend.mend(program)``, the breaks left by runtime-aware
``graphmend.compile(program, example_inputs=INPUTS[0], backend="eager")`` (its report's
``breaks_after``: the same measure, of what the compiled program runs), and the sites
GraphMend declined with its reasons; then, on every input, the original (eager) against the
mended program eagerly, compiled with ``graphmend.compile(..., backend="eager")`` and
compiled runtime-aware: returned value or exception, printed text, log records, warnings
(tests/python/behaviour.py). Writes the JSON and docs/PEER.md (the whole
file is generated; docs/RESULTS.md links to it).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import logging
import os
import platform
import sys
import time
from collections import OrderedDict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
sys.path.insert(0, str(ROOT / "bench" / "models"))

import torch  # noqa: E402
import torch._dynamo  # noqa: E402

import graphmend  # noqa: E402
from graphmend import evidence  # noqa: E402
from behaviour import behaviour_differences, fresh_inputs, grad_mode, observe  # noqa: E402
from graphmend.cli.explain import gb_id_of  # noqa: E402
from hf_arm import FAMILY_ORDER, family  # noqa: E402
from case_files import PEER_DIR, PEER_PREFIX, build, case_ids, load  # noqa: E402
import suite_report  # noqa: E402

CATEGORY_ORDER = ["where", "defer", "trap", "mixed", "out_of_scope", "no_break"]
CATEGORY_MEANING = OrderedDict([
    ("where", "a data-dependent branch or conditional expression ([Where]/[Cond])"),
    ("defer", "print, logging or warnings.warn in the compiled region ([Defer])"),
    ("trap", "a validation guard or assert on tensor values ([Trap])"),
    ("mixed", "more than one of the above in one program"),
    ("out_of_scope", "not fixable by design: data-dependent output shapes, Python values "
                     "or structure that depend on tensor data"),
    ("no_break", "plain torch.compile does not break: GraphMend must leave it as it is"),
])
SECTION = "peer"
COMMAND = "make peer  # python bench/peer.py --json bench/peer-results.json --out docs/PEER.md"


def explain(module, obj):
    torch._dynamo.reset()
    if hasattr(module, "reset"):  # process state a run leaves (a registry) shapes the trace
        module.reset()
    with grad_mode(module):
        report = graphmend.explain(obj, *fresh_inputs(module, 0))
    return report


def runtime_aware(module, entry):
    """Runtime-aware ``graphmend.compile`` on INPUTS[0] (its runs' output is not shown):
    the compiled program, with its breaks and rounds in ``entry``; None when it raised."""
    torch._dynamo.reset()
    try:
        with grad_mode(module), contextlib.redirect_stdout(io.StringIO()):
            compiled = graphmend.compile(build(module), example_inputs=fresh_inputs(module, 0),
                                         backend="eager")
    except Exception as exc:  # recorded: the column says it failed
        entry["breaks_runtime_aware"] = None
        entry["runtime_aware_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        return None
    report = graphmend.compile_report(compiled)
    entry["breaks_runtime_aware"] = len(report.breaks_after)
    entry["rounds_runtime_aware"] = report.rounds
    entry["fixed_runtime_aware"] = sorted({f"{d.code} {d.rewrite}" for d in report.mended})
    return compiled


def measure(name):
    module = load(name, PEER_DIR, PEER_PREFIX)
    entry = {"name": name, "project": name.split("/")[0], "origin": module.ORIGIN,
             "category": module.CATEGORY, "inputs": len(module.INPUTS)}
    try:
        before = explain(module, build(module))
    except Exception as exc:  # plain torch.compile itself fails: nothing to compare with
        entry["unmeasurable"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        return entry
    entry["breaks_before"] = len(before.breaks)
    entry["graphs_before"] = before.graph_count
    entry["reasons_before"] = sorted({b.reason.splitlines()[0][:160] for b in before.breaks})
    entry["families_before"] = _families(before)
    mended, report = graphmend.mend(build(module), report=True)
    after = explain(module, mended)
    entry["breaks_after"] = len(after.breaks)
    entry["graphs_after"] = after.graph_count
    entry["reasons_after"] = sorted({b.reason.splitlines()[0][:160] for b in after.breaks})
    entry["families_after"] = _families(after)
    entry["fixed"] = sorted({f"{d.code} {d.rewrite}" for d in report.fixed})
    entry["declined"] = [f"{d.code}: {d.message}" for d in
                         sorted(report.declined, key=lambda d: (d.filename, d.line))]
    aware = runtime_aware(module, entry)
    differences, inherited = [], []
    torch._dynamo.reset()
    original = build(module)
    mended_eager = graphmend.mend(build(module))
    compiled = graphmend.compile(build(module), backend="eager")
    plain = torch.compile(build(module), backend="eager")
    for index in range(len(module.INPUTS)):
        expected = observe(module, original, index)
        plain_differ = behaviour_differences(expected, observe(module, plain, index))
        candidates = [("eager", mended_eager), ("compiled", compiled)]
        candidates += [("runtime-aware", aware)] if aware is not None else []
        for label, candidate in candidates:
            differ = behaviour_differences(expected, observe(module, candidate, index))
            if not differ:
                continue
            text = f"input {index}, {label}: {', '.join(differ)}"
            # A compiled difference plain torch.compile makes too is Dynamo's, not the mender's.
            if label != "eager" and set(differ) <= set(plain_differ):
                inherited.append(text + " (plain torch.compile too)")
            else:
                differences.append(text)
    entry["differences"] = differences
    entry["inherited_differences"] = inherited
    entry["same_behaviour"] = not differences
    with_evidence(module, entry, graphmend.compile_report(compiled), after)
    return entry


def with_evidence(module, entry, report, after):
    """The breaks of what the later calls of ``graphmend.compile(program)`` (no example
    inputs) run: the program mended from its text and from its first call's evidence (that
    call ran on INPUTS[0] above), under the same measure as ``after``."""
    observed = report.observed_lines if report is not None else {}
    if observed:
        mended, _ = evidence.mend_with(build(module), observed)
        after = explain(module, mended)
    entry["breaks_evidence"] = len(after.breaks)
    entry["graphs_evidence"] = after.graph_count
    entry["families_evidence"] = _families(after)


def _families(report):
    """The report's breaks by Dynamo's reason family (bench/models/hf_arm.py's families)."""
    counts = collections.Counter()
    for info in report.breaks:
        first = info.reason.splitlines()[0] if info.reason else ""
        counts[family(gb_id_of(first) or None, info.reason or "")] += 1
    return dict(counts)


def family_table(entries):
    """Breaks by Dynamo's reason family over every program: before, after mending, and
    with the first call's evidence; and the programs with such a break."""
    lines = [
        "| reason family | breaks before → after mending → with evidence "
        "| programs before → after → with evidence |",
        "| --- | --- | --- |",
    ]
    for name in FAMILY_ORDER:
        cells = []
        for counted in (sum, lambda values: sum(1 for v in values if v)):
            per_arm = [counted([e.get(f"families_{arm}", {}).get(name, 0) for e in entries])
                       for arm in ("before", "after", "evidence")]
            cells.append(" → ".join(str(n) for n in per_arm))
        lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
    return lines


def _broken(entry, when):
    """Breaks, or no graph at all (Dynamo ran the whole frame eagerly)."""
    return entry[f"breaks_{when}"] > 0 or entry[f"graphs_{when}"] == 0


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _aware_cell(entry):
    if entry.get("breaks_runtime_aware") is None:
        return "error: " + _cell(entry.get("runtime_aware_error", ""))
    return f"{entry['breaks_runtime_aware']} ({entry['rounds_runtime_aware']})"


def _fixable(entries):
    return [e for e in entries if e["category"] not in ("out_of_scope", "no_break")
            and _broken(e, "before")]


def _aware_zero(entry) -> bool:
    return entry.get("breaks_runtime_aware") == 0


def summary(entries):
    """The per-category table and the totals (PEER.md's and RESULTS.md's section)."""
    lines = [
        "| category | what it holds | programs | break originally | reach zero after mending "
        "| reach zero with first-call evidence | reach zero runtime-aware | fewer breaks "
        "| semantic changes |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    totals = [0] * 7
    for category in CATEGORY_ORDER:
        rows = [e for e in entries if e["category"] == category]
        broke = [e for e in rows if _broken(e, "before")]
        zero = [e for e in broke if not _broken(e, "after")]
        seen = [e for e in broke if not _broken(e, "evidence")]
        aware = [e for e in broke if _aware_zero(e)]
        fewer = [e for e in broke if 0 < e["breaks_after"] < e["breaks_before"]]
        changed = [e for e in rows if not e["same_behaviour"]]
        counts = [len(rows), len(broke), len(zero), len(seen), len(aware), len(fewer),
                  len(changed)]
        totals = [a + b for a, b in zip(totals, counts)]
        lines.append(f"| {category} | {CATEGORY_MEANING[category]} | " +
                     " | ".join(str(c) for c in counts) + " |")
    lines.append("| **all** | | " + " | ".join(f"**{c}**" for c in totals) + " |")
    fixable = _fixable(entries)
    fixed = [e for e in fixable if not _broken(e, "after")]
    seen = [e for e in fixable if not _broken(e, "evidence")]
    aware = [e for e in fixable if _aware_zero(e)]
    either = [e for e in fixable
              if not _broken(e, "after") or not _broken(e, "evidence") or _aware_zero(e)]
    projects = sorted({e["project"] for e in entries})

    def share(part):
        return f"{len(part)} of {len(fixable)} ({100.0 * len(part) / max(len(fixable), 1):.0f}%)"

    lines += [
        "",
        f"{len(entries)} programs from {len(projects)} projects ({', '.join(projects)}); "
        f"{sum(_broken(e, 'before') for e in entries)} break under plain `torch.compile`. "
        f"Fixable programs brought to zero breaks by `graphmend.mend` (the source alone): "
        f"{share(fixed)}; by `graphmend.compile(program)` with its first call's evidence "
        f"(the default): {share(seen)}; by runtime-aware `graphmend.compile(..., "
        f"example_inputs=...)`: {share(aware)}; by one of them: {share(either)}. The target "
        "is 90%. "
        f"Semantic changes: {sum(not e['same_behaviour'] for e in entries)} (the target is 0). "
        "Differences plain `torch.compile` makes as well (Dynamo's, listed in the table, not "
        f"counted): {sum(bool(e['inherited_differences']) for e in entries)}.",
    ]
    return lines


def unmeasured(meta):
    """The sentence naming the programs plain torch.compile itself fails on (none: [])."""
    found = meta.get("unmeasurable") or []
    if not found:
        return []
    names = "; ".join(f"`{name}` ({error})" for name, error in found)
    return ["", f"Not measured, as plain `torch.compile` itself fails on them on INPUTS[0] "
                f"(listed in `tests/python/test_peer.py`'s PENDING): {names}."]


def results_section(entries, meta):
    """The peer corpus section of docs/RESULTS.md (between its markers)."""
    return "\n".join([
        f"<!-- {SECTION}:begin (bench/peer.py; edits here are overwritten) -->",
        "## Peer corpus: programs re-written from real public code",
        "",
        "Each program of `tests/peer/` re-writes a function of real public code (named in its "
        "`ORIGIN`) as a small seeded module, run eagerly and compiled with the original as the "
        "oracle. Breaks before and after mending per category (per program, with what is left "
        f"and why: [PEER.md](PEER.md)). Produced by `{COMMAND}` on {meta['date']}.",
        "",
        *summary(entries),
        *unmeasured(meta),
        "",
        f"<!-- {SECTION}:end -->",
    ]) + "\n"


def markdown(entries, meta):
    lines = [
        "# Peer corpus results",
        "",
        "The programs of `tests/peer/` (see `tests/peer/README.md`): each re-written from a "
        "function of real public code, named in its `ORIGIN`, shrunk to a small seeded module "
        "with the original's control flow and messages. Measured by `bench/peer.py`:",
        "",
        "- **breaks**: the breaks `graphmend.explain` reports on the program's first input "
        "(every logging level enabled): Dynamo's break reasons and the break of each frame it "
        "gave up on (a break in a loop or under a context manager), for plain `torch.compile` "
        "(before) and for `graphmend.mend(program)` (after);",
        "- **evidence**: the same measure of what the later calls of `graphmend.compile("
        "program, backend=\"eager\")` (the default, no example inputs) run: the program "
        "mended from its text and from the evidence of its first call, on INPUTS[0];",
        "- **runtime-aware**: the breaks left by runtime-aware `graphmend.compile(program, "
        "example_inputs=INPUTS[0], backend=\"eager\")` (the same measure, of what the compiled "
        "program runs: mended where Dynamo broke, in up to 3 rounds, with the capture options "
        "it enabled), and its rounds in brackets (\"error\": compiling raised);",
        "- **same behaviour**: on every input, the mended program eagerly, compiled with "
        "`graphmend.compile(..., backend=\"eager\")` and compiled runtime-aware returns (or "
        "raises), prints, logs and warns "
        "exactly what the original does eagerly. A difference is a semantic change: a bug. "
        "`tests/python/test_peer.py` checks the same, and with Inductor, in `make test`.",
        "",
        f"Produced by `{COMMAND}` on {meta['date']} ({meta['machine']}; torch "
        f"{meta['torch']}, Python {meta['python']}; {meta['seconds']:.0f} s).",
        "",
        "## Per category",
        "",
        "*Fixable* programs are those of every category but `out_of_scope` and `no_break` that "
        "break under plain `torch.compile`.",
        "",
    ]
    lines += summary(entries) + unmeasured(meta)
    lines += [
        "",
        "## Per reason family",
        "",
        "Every program's breaks by Dynamo's reason family (its GB ids, grouped as the "
        "transformers survey groups them: bench/models/hf_arm.py), so progress on each family "
        "shows, the data-dependent ones (operators, shapes, `Tensor.item()`) included.",
        "",
        *family_table(entries),
        "",
        "## Per program",
        "",
        "Breaks as before → after (graphs in brackets; 0 graphs: Dynamo ran the whole frame "
        "eagerly, counted as broken), the breaks left with the first call's evidence (graphs "
        "in brackets), then the breaks runtime-aware compile leaves (its "
        "rounds in brackets). For a program left with breaks after mending: the "
        "sites GraphMend declined, with its reason, or, where it reported none, the break "
        "reasons Dynamo gives.",
        "",
        "| program | category | origin | breaks | evidence | runtime-aware | same behaviour "
        "| left, and why |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for e in entries:
        if _broken(e, "after"):
            why = "; ".join(e["declined"]) or "no site reported; Dynamo: " + "; ".join(
                e["reasons_after"])
        else:
            why = ""
        same = "yes" if e["same_behaviour"] else "**no**: " + "; ".join(e["differences"])
        if e["inherited_differences"]:
            same += " (as plain torch.compile: " + "; ".join(e["inherited_differences"]) + ")"
        lines.append(
            f"| `{e['name']}` | {e['category']} | {_cell(e['origin'])} | "
            f"{e['breaks_before']} ({e['graphs_before']}) → {e['breaks_after']} "
            f"({e['graphs_after']}) | {e['breaks_evidence']} ({e['graphs_evidence']}) | "
            f"{_aware_cell(e)} | {_cell(same)} | {_cell(why[:600])} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated program names")
    parser.add_argument("--json", default=str(ROOT / "bench" / "peer-results.json"))
    parser.add_argument("--out", default=str(ROOT / "docs" / "PEER.md"))
    parser.add_argument("--results", default=str(ROOT / "docs" / "RESULTS.md"),
                        help="the file whose peer section is rewritten")
    args = parser.parse_args(argv)
    logging.getLogger().setLevel(logging.DEBUG)  # every level enabled, as the tests measure
    logging.getLogger().addHandler(logging.NullHandler())  # records are observed, not shown
    names = case_ids(PEER_DIR)
    if args.only:
        wanted = set(args.only.split(","))
        names = [n for n in names if n in wanted]
    started = time.time()
    entries, unmeasurable = [], []
    for name in names:
        t0 = time.time()
        entry = measure(name)
        if "unmeasurable" in entry:
            unmeasurable.append(entry)
            print(f"{name:48} not measured: {entry['unmeasurable']}", file=sys.stderr)
            continue
        entries.append(entry)
        print(f"{name:48} {entry['category']:12} {entry['breaks_before']:2} -> "
              f"{entry['breaks_after']:2}  evidence {entry['breaks_evidence']}  "
              f"runtime-aware {entry['breaks_runtime_aware']}  "
              f"same={entry['same_behaviour']}  "
              f"({time.time() - t0:.1f} s)", file=sys.stderr, flush=True)
    meta = {"date": time.strftime("%Y-%m-%d"), "torch": torch.__version__,
            "python": platform.python_version(),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "seconds": time.time() - started,
            "unmeasurable": [(e["name"], e["unmeasurable"]) for e in unmeasurable]}
    if not args.only:
        Path(args.json).write_text(json.dumps({"meta": meta, "programs": entries}, indent=1)
                                   + "\n", encoding="utf-8")
        Path(args.out).write_text(markdown(entries, meta), encoding="utf-8")
        suite_report.replace_section(args.results, SECTION, results_section(entries, meta))


if __name__ == "__main__":
    main()
