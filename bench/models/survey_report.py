"""Markdown summary of one or more survey JSON files (bench/models/survey.py --out ...).

    python bench/models/survey_report.py survey-5.23.0.json survey-4.52.4.json > survey.md
"""

from __future__ import annotations

import argparse
import json


def load(paths):
    surveys = []
    for path in paths:
        with open(path) as handle:
            surveys.append(json.load(handle))
    return surveys


def version_of(survey) -> str:
    return survey["environment"]["transformers"]


def by_model(survey) -> dict:
    return {record["model"]: record for record in survey["models"]}


def counts_cell(record) -> str:
    """`graphs/breaks` from explain, or why there are none."""
    if record is None:
        return "not run"
    if record.get("status") == "build_or_eager_failed":
        return "build failed"
    info = record.get("explain", {})
    if "error" in info:
        return "explain failed"
    counted = record.get("counting_backend", {}).get("graphs", "?")
    cell = f"{info['graph_count']} / {info['graph_break_count']}"
    return cell if counted == info["graph_count"] else f"{cell} (counted {counted})"


def root_sites(record) -> list[dict]:
    if record is None:
        return []
    counted = record.get("counting_backend", {})
    return counted.get("grouped") or record.get("explain", {}).get("grouped") or []


def summary_table(surveys, names) -> list[str]:
    versions = [version_of(s) for s in surveys]
    header = "| model | " + " | ".join(f"{v}: graphs / breaks (lines)" for v in versions) + " |"
    lines = [header, "|---|" + "---|" * len(versions)]
    tables = [by_model(s) for s in surveys]
    for name in names:
        cells = []
        for table in tables:
            record = table.get(name)
            sites = {g["where"] for g in root_sites(record)}
            cell = counts_cell(record)
            cells.append(f"{cell} ({len(sites)})" if sites else cell)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def model_section(name, surveys) -> list[str]:
    lines = [f"### {name}", ""]
    first = next((by_model(s).get(name) for s in surveys if by_model(s).get(name)), None)
    if first and "class" in first:
        inputs = ", ".join(f"{k}={v}" for k, v in first["inputs"].items())
        lines += [
            f"{first['class']} ({first['checkpoint']} scaled down; {first['dtype']}; {first['note']}).",
            f"Inputs: {inputs}.",
            "",
        ]
    for survey in surveys:
        record = by_model(survey).get(name)
        lines.append(f"**transformers {version_of(survey)}**: {_headline(record)}")
        lines.append("")
        for group in root_sites(record):
            mode = "" if group.get("mode", "graph split") == "graph split" else f", {group['mode']}"
            lines.append(f"- {group['count']}x `{group['where']}` {group['reason']}{mode}")
            lines.append(f"  `{group['code']}`")
            for caller in group.get("callers", []):
                lines.append(f"  (from `{caller['where']}`: `{caller['code']}`)")
        if record and root_sites(record):
            lines.append("")
    return lines


def _headline(record) -> str:
    if record is None:
        return "not run."
    if record.get("status") == "build_or_eager_failed":
        return f"failed to build or run eagerly: `{record['error'].splitlines()[-1][:300]}`"
    info = record.get("explain", {})
    if "error" in info:
        return f"explain failed: `{info['error'].splitlines()[-1][:300]}`"
    attn = record.get("attn_implementation")
    return (
        f"{info['graph_count']} graphs, {info['graph_break_count']} breaks"
        f" (attention: {attn}; {record.get('total_s', '?')} s)."
    )


PREAMBLE = """\
Produced by `bench/models/survey.py` (one JSON per transformers version) and
`bench/models/survey_report.py`. Models come from `bench/models/zoo.py`: tiny, seeded, random
weights, eval mode, `torch.no_grad()`, CPU, torch {torch}.

How to read the counts:
- graphs / breaks: `torch._dynamo.explain` (eager backend); breaks = graphs - 1. A counting
  backend under `torch.compile` saw the same number of graphs unless noted.
- One break deep in a call chain splits the graph of every enclosing frame (Dynamo without
  nested graph breaks), so one source line can account for several breaks.
- Sites below group the breaks Dynamo logged by root cause (Dynamo's graph-break type and the
  innermost transformers line, with the calling model line where the break is in a helper).
  "Nx": how many graph splits that cause produced; "frame skipped": Dynamo gave up on that
  frame and ran it eagerly (no graph at all for it). "(lines)" in the summary: how many
  distinct source lines cause breaks.
"""


def render(surveys) -> str:
    names = list(dict.fromkeys(r["model"] for s in surveys for r in s["models"]))
    torch_version = surveys[0]["environment"]["torch"]
    lines = ["# Graph-break survey of the model zoo", "", PREAMBLE.format(torch=torch_version)]
    for survey in surveys:
        lines.append(f"- transformers {version_of(survey)}: survey took {survey['seconds']} s.")
    lines += ["", "## Summary", ""] + summary_table(surveys, names) + ["", "## Per model", ""]
    for name in names:
        lines += model_section(name, surveys)
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("surveys", nargs="+", help="JSON files written by survey.py --out")
    parser.add_argument("--out", help="write the Markdown here (default: stdout)")
    args = parser.parse_args(argv)
    text = render(load(args.surveys))
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    else:
        print(text, end="")


if __name__ == "__main__":
    main()
