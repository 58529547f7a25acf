"""The real job, side by side: a Hugging Face model compiled as it is and with transformers
mended at import by GraphMend.

    python bench/models/demo.py                      # BART (float16), Inductor on the CPU
    python bench/models/demo.py --model grounding_dino --repeats 10
    python bench/models/demo.py --backend eager      # quick: no Inductor compile

Runs `suite.py run` for one model (three fresh processes: original, mended with an empty
GraphMend cache, mended again with the cache filled) and prints the graph breaks, where each
one was and what GraphMend did with it, the outputs check, cold start, steady-state latency
and throughput of both arms, and GraphMend's own time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def run_suite(args) -> dict:
    out = os.path.join(args.work_dir, f"demo-{args.model}.json")
    command = [
        sys.executable, os.path.join(HERE, "suite.py"), "run", "--models", args.model,
        "--backend", args.backend, "--repeats", str(args.repeats), "--out", out,
    ]
    print("$ " + " ".join(os.path.relpath(c, REPO) if c.startswith(REPO) else c for c in command),
          flush=True)
    subprocess.run(command, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    with open(out) as handle:
        return json.load(handle)


def _row(label: str, original: str, mended: str, note: str = "") -> str:
    return f"  {label:<28} {original:>14} {mended:>14}  {note}"


def _ratio(original: float, mended: float) -> str:
    return f"mended/original {mended / original:.2f}x" if original and mended else ""


def _breaks(arm: dict) -> dict:
    return arm.get("breaks", {}).get("explain", {})


def show(result: dict) -> None:
    entry = result["models"][0]
    if "error" in entry:
        raise SystemExit(f"the suite failed on {entry['model']}: {entry['error']}")
    original, mended, warm = entry["original"], entry["mended"], entry.get("mended_warm", {})
    setup = original["setup"]
    print(f"\n{setup['class']} ({entry['model']}, {setup['dtype']}, {setup['parameters']:,} "
          f"parameters, seeded random weights), transformers {result['transformers']}, "
          f"torch {original['environment']['torch']}, backend {result['backend']} on the CPU\n")
    print(_row("", "original", "mended"))
    before, after = _breaks(original), _breaks(mended)
    print(_row("graph breaks (explain)", str(before.get("graph_break_count")),
               str(after.get("graph_break_count"))))
    counted = [arm["breaks"]["counting_backend"]["graphs"] for arm in (original, mended)]
    print(_row("graphs (counting backend)", str(counted[0]), str(counted[1])))
    print(_row("cold start (s)", f"{original['cold_start_s']:.1f}", f"{mended['cold_start_s']:.1f}",
               "process start to first compiled output; fresh Inductor caches"))
    if warm:
        print(_row("cold start, warm GraphMend cache", "", f"{warm['cold_start_s']:.1f}"))
    if "steady" in original and "steady" in mended:
        o, m = original["steady"], mended["steady"]
        print(_row("steady-state latency (ms)", f"{o['median_ms']:.3f}", f"{m['median_ms']:.3f}",
                   f"median of {o['repeats']}; {_ratio(o['median_ms'], m['median_ms'])}"))
        print(_row("throughput (examples/s)", f"{o['throughput_per_s']:.0f}",
                   f"{m['throughput_per_s']:.0f}"))
    cost = mended["graphmend"]
    warm_cost = warm.get("graphmend", {})
    print(_row("GraphMend's own time (s)", "", f"{cost['total_s']:.2f}",
               f"empty cache ({cost['mended']} modules mended); "
               f"warm cache {warm_cost.get('total_s', float('nan')):.2f}"))
    outputs = entry["outputs"]
    print(f"\n  outputs equal: {outputs['equal']} (eager outputs identical: "
          f"{outputs['eager_exact']['equal']}; compiled within {result['tolerances'][setup['dtype']]}); "
          f"same weights: {entry['weights_equal']}")
    print("\n  breaks the original logged (counting backend), and what GraphMend did there:")
    shown = set()
    for item in original["breaks"]["counting_backend"]["grouped"] or [{"reason": "none"}]:
        _show_site(item)
        verdict, rewritten = graphmend_verdict(item.get("where", ""))
        if verdict:
            print(f"         graphmend: {verdict}")
        if rewritten and item["where"] not in shown:
            shown.add(item["where"])
            print("         rewritten to:")
            for text in rewritten.splitlines()[:8]:
                print(f"           {text}")
    left = mended["breaks"]["counting_backend"]["grouped"]
    print("  breaks left after mending:" + ("" if left else " none"))
    for item in left:
        _show_site(item)


def _show_site(item: dict) -> None:
    count = f"{item['count']}x " if "count" in item else ""
    mode = f" [{item['mode']}]" if item.get("mode") == "frame skipped" else ""
    print(f"    {count}{item.get('where', '')}: {item['reason']}{mode}")
    if item.get("code"):
        print(f"         {item['code']}")


def graphmend_verdict(where: str):
    """GraphMend's diagnostic for a transformers file:line, as the import hook mends it, and
    the text its fix put there ("" when it was not rewritten)."""
    if not where.startswith("transformers/") or ":" not in where:
        return "", ""
    import graphmend
    import transformers

    relative, line = where.rsplit(":", 1)
    path = os.path.join(os.path.dirname(os.path.dirname(transformers.__file__)), relative)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    result = graphmend.mend_source(text, path, trace_all=True)
    line_number = int(line)
    covering = [d for d in result.diagnostics if d.line <= line_number <= max(d.line, d.end_line)]
    if not covering:
        return "no break site found on this line (not a pattern the mender tags)", ""
    d = min(covering, key=lambda d: d.end_line - d.line)
    if not d.fixed:
        return f"{d.code} not fixed: {d.message}", ""
    data = text.encode("utf-8")
    line_start = len(b"".join(data.splitlines(keepends=True)[: d.line - 1]))
    start = line_start + d.column  # columns are byte offsets
    edit = next((e for e in result.edits if e[0] <= start < max(e[1], e[0] + 1)), None)
    if edit is None:
        return f"{d.code} fixed ({d.rewrite}): {d.message}", ""
    # The replacement starts where the edit does: give its first line the line's indentation.
    indent = data[line_start : edit[0]].decode("utf-8")
    rewritten = textwrap.dedent((indent if not indent.strip() else "") + edit[2])
    return f"{d.code} fixed ({d.rewrite}): {d.message}", rewritten


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="bart", help="a name of bench/models/zoo.py")
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--work-dir", default=os.path.join(REPO, "build", "demo"))
    args = parser.parse_args(argv)
    os.makedirs(args.work_dir, exist_ok=True)
    show(run_suite(args))


if __name__ == "__main__":
    main()
