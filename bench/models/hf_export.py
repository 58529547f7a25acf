"""torch.export before and after mending, on the classes of the transformers survey
(hf_survey.py): each class built tiny from its config class (hf_build.py, seeded, never the
hub), in eval mode, with the survey's inputs, then `graphmend.export(model, (), kwargs,
strict=...)` non-strict and strict: whether the original exports, whether the mended one
does (export's reason when not), what mending dropped from the exported program, and the
exported program's outputs against the original's eager outputs on the same inputs.

    python bench/models/hf_export.py run --sample --out build/hf-export/sample.jsonl
    python bench/models/hf_export.py run --shard 2/8 --out build/hf-export/all.jsonl
    python bench/models/hf_export.py run --surveyed bench/models/results/hf-survey-*.jsonl --out F
    python bench/models/hf_export.py report build/hf-export/sample.jsonl --out docs/RESULTS.md

(`make export-models` runs the sample and writes the section.) Export is for deployment, so
eval mode only. Each class runs in a process forked from this one with `--timeout` seconds;
`run` appends one JSON line per class and skips the classes `--out` already has.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import hf_survey  # noqa: E402

SECTION = "hf-export"
MODES = (("non-strict", False), ("strict", True))
DEFAULT_TIMEOUT_S = 300
FINDINGS = os.path.join(HERE, "hf_export_findings.md")


def export_class(row: dict) -> dict:
    """One class's record: eager outputs, then each export mode before and after mending."""
    import warnings

    import torch

    import graphmend
    import hf_arm
    import hf_build

    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    record: dict = {**row}
    try:
        model, kwargs, variant = hf_arm.build_model(row, "eval")
    except Exception as error:  # a class that does not build tiny is a result
        return {**record, "status": "skipped", "reason": hf_arm.short_error(error)}
    record["variant"] = list(variant)
    if "use_cache" in hf_build.forward_parameters(type(model)):
        # What an export for deployment passes: a cache object is not an output export takes.
        kwargs = {**kwargs, "use_cache": False}
    eager = hf_arm.run(model, kwargs, "eval")
    if eager.error:
        return {**record, "status": "skipped", "reason": f"eager: {eager.error}"}
    for mode, strict in MODES:
        started = time.perf_counter()
        try:
            program, report = graphmend.export(model, (), kwargs, strict=strict, report=True)
        except Exception as error:  # GraphMend's own failure: a result, and a bug
            record[mode] = {"error": hf_arm.short_error(error)}
            continue
        entry = {
            "before": report.original_exported,
            "after": report.exported,
            "reason_before": report.original_reason[:300],
            "reason_after": report.reason[:300],
            "mended_program": bool(report.mended),
            "mended": len(report.mended),
            "dropped": len(report.dropped),
            "traps": report.traps,
        }
        if program is not None:
            exported = hf_arm.run(program.module(), kwargs, "eval")
            entry["equal"] = exported.error is None and bool(
                hf_arm.compare(eager, exported, exact=False).get("outputs")
            )
            entry["error"] = exported.error
        entry["seconds"] = round(time.perf_counter() - started, 2)
        record[mode] = entry
    record["status"] = "ok"
    return record


def run_main(args) -> None:
    rows = hf_survey.select(hf_survey.classes_from_child(), args)
    if args.surveyed:
        surveyed = {r.get("class") for path in args.surveyed for r in hf_survey.read_lines(path)}
        rows = [r for r in rows if r["class"] in surveyed]
    done = {r["class"] for r in hf_survey.read_lines(args.out)} if os.path.exists(args.out) else set()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    hf_survey.prepare_parent()
    for row in rows:
        if row["class"] in done:
            continue
        record = hf_survey.forked(lambda: export_class(row), args.timeout)
        record = {**row, **record}
        hf_survey.append_line(args.out, record)
        print(summary_line(record), file=sys.stderr, flush=True)


def summary_line(record: dict) -> str:
    if record.get("status") != "ok":
        return f"{record['class']:48} {record.get('status')}: {record.get('reason', '')[:100]}"
    cells = []
    for mode, _ in MODES:
        entry = record.get(mode, {})
        cells.append(f"{mode} {_mark(entry.get('before'))}->{_mark(entry.get('after'))}"
                     f"{' equal' if entry.get('equal') else ''}")
    return f"{record['class']:48} " + "  ".join(cells) + f"  ({record.get('wall_s', 0):.0f} s)"


def _mark(value) -> str:
    return "yes" if value else "no"


# ---------------------------------------------------------------------------------------------
# The report.


def table(records: list[dict]) -> list[str]:
    ran = [r for r in records if r.get("status") == "ok"]
    lines = [
        "| mode | classes built | export before mending | after | gained | lost | the mended program returned | outputs equal to eager |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for mode, _ in MODES:
        entries = [r[mode] for r in ran if "before" in r.get(mode, {})]
        before = sum(bool(e["before"]) for e in entries)
        after = sum(bool(e["after"]) for e in entries)
        gained = sum(bool(e["after"] and not e["before"]) for e in entries)
        lost = sum(bool(e["before"] and not e["after"]) for e in entries)
        mended = sum(bool(e["after"] and e["mended_program"]) for e in entries)
        equal = sum(bool(e.get("equal")) for e in entries)
        lines.append(f"| {mode} | {len(entries)} | {before} | {after} | {gained} | {lost} | {mended} | {equal} of {after} |")
    return lines


def reasons(records: list[dict]) -> list[str]:
    """What still blocks the export after mending, by the first words of export's reason."""
    lines = []
    for mode, _ in MODES:
        counts = collections.Counter()
        for record in records:
            entry = record.get(mode, {})
            if record.get("status") == "ok" and "after" in entry and not entry["after"]:
                counts[_reason_key(entry["reason_after"])] += 1
        if counts:
            lines.append(f"- {mode}: " + "; ".join(f"{reason} ({n})" for reason, n in counts.most_common(8)))
    return lines


def _reason_key(reason: str) -> str:
    text = reason.split(" (/")[0]
    return (text[:110] + "...") if len(text) > 110 else text


def class_rows(records: list[dict]) -> list[str]:
    lines = ["| class | modality | non-strict before → after | strict before → after | equal |", "| --- | --- | --- | --- | --- |"]
    for record in sorted(records, key=lambda r: r["class"]):
        if record.get("status") != "ok":
            lines.append(f"| `{record['class']}` | {record.get('modality', '')} | {record.get('status')}: {_reason_key(record.get('reason', ''))} | | |")
            continue
        cells = []
        for mode, _ in MODES:
            entry = record.get(mode, {})
            cells.append(f"{_mark(entry.get('before'))} → {_mark(entry.get('after'))}" if "before" in entry else f"error: {entry.get('error', '')[:80]}")
        equal = all(record.get(m, {}).get("equal", True) for m, _ in MODES if record.get(m, {}).get("after"))
        lines.append(f"| `{record['class']}` | {record.get('modality', '')} | {cells[0]} | {cells[1]} | {'yes' if equal else 'no'} |")
    return lines


def findings() -> list[str]:
    """What the data says, written by hand (FINDINGS), kept in the generated section."""
    if not os.path.exists(FINDINGS):
        return []
    with open(FINDINGS) as handle:
        return [handle.read().strip(), ""]


def section(records: list[dict], sources: list[str]) -> str:
    skipped = [r for r in records if r.get("status") != "ok"]
    return "\n".join([
        f"<!-- {SECTION}:begin (bench/models/hf_export.py; edits here are overwritten) -->",
        "### torch.export of the transformers survey's classes",
        "",
        "The classes the transformers survey ran (`hf_survey.py`: its fixed sample and the shards "
        "run so far), built tiny, in eval mode, exported with `graphmend.export(model, "
        "(), kwargs, strict=...)` on the survey's inputs (static shapes), with `use_cache=False` where the forward takes it (a cache object is not an output export takes). **before**: the "
        "original exports; **after**: `graphmend.export` returns a program; **outputs equal**: "
        "the exported program's outputs against the original's eager ones (the survey's "
        f"tolerances). Produced by `make export-models` from {', '.join(sources)} on "
        f"{time.strftime('%Y-%m-%d')}; {len(records)} classes, {len(skipped)} not built or not run.",
        "",
        *table(records),
        "",
        "What still blocks the export after mending (export's reason, classes):",
        "",
        *reasons(records),
        "",
        *findings(),
        *class_rows(records),
        "",
        f"<!-- {SECTION}:end -->",
    ]) + "\n"


def report_main(args) -> None:
    import suite_report

    records = {}
    for path in args.results:
        for record in hf_survey.read_lines(path):
            if "class" in record:
                records[record["class"]] = record
    text = section(list(records.values()), [os.path.relpath(p, hf_survey.REPO) for p in args.results])
    if args.out:
        suite_report.replace_section(args.out, SECTION, text)
    else:
        print(text)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    run = sub.add_parser("run", help="export classes, one JSON line per class appended to --out")
    run.add_argument("--out", required=True)
    hf_survey.add_selection_arguments(run)
    run.add_argument("--surveyed", nargs="+", help="only the classes these survey JSON-lines files ran")
    run.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per class")
    report = sub.add_parser("report", help="the Markdown section, into --out (default: stdout)")
    report.add_argument("results", nargs="+")
    report.add_argument("--out")
    args = parser.parse_args(argv)
    if args.step == "run":
        run_main(args)
    else:
        report_main(args)


if __name__ == "__main__":
    main()
