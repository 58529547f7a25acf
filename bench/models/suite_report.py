"""docs/RESULTS.md and docs/results.png from the model suite's result JSONs
(`python bench/models/suite.py report results-5.23.0.json results-4.52.4.json`)."""

from __future__ import annotations

import json
import math
import os
import statistics

# The GraphMend paper (arXiv 2509.16248) as far as our notes go: zoo name -> what it reports
# for the checkpoint our model scales down. Models not listed: no per-model count in our notes.
PAPER = {
    "biogpt": "biogpt: fixed to 0",
    "blenderbot": "blenderbot-400M-distill: fixed to 0",
    "t5": "flan-t5-large: fixed to 0",
    "phi3": "Phi-4-mini: fixed to 0",
    "pegasus": "tiny PegasusForCausalLM: fixed to 0",
    "longformer": "5 -> 2 or 3",
    "longformer_local": "5 -> 2 or 3",
}
PAPER_TOTALS = (
    "The paper's later version: 27 models, 147 breaks, 107 fixed, 21 models fully fixed; "
    "it also lists moe-minicpm (fixed to 0), which the zoo does not build. Per-model counts "
    "for the other zoo models are not in our notes, so that column says n/a rather than guess."
)


def load(paths):
    results = []
    for path in paths:
        with open(path) as handle:
            result = json.load(handle)
        result["path"] = path
        results.append(result)
    return results


# ---------------------------------------------------------------------------------------------
# Cells.


def _ok(record) -> bool:
    return bool(record) and "error" not in record


def _breaks(record):
    """(explain breaks, counting-backend breaks) of one arm, None where not measured."""
    breaks = (record or {}).get("breaks", {})
    explain = breaks.get("explain", {}).get("graph_break_count")
    graphs = breaks.get("counting_backend", {}).get("graphs")
    return explain, (graphs - 1 if isinstance(graphs, int) else None)


def _n(value):
    return "?" if value is None else str(value)


def breaks_cell(entry) -> str:
    before, after = _breaks(entry["original"]), _breaks(entry["mended"])
    return f"{_n(before[0])} -> {_n(after[0])}; {_n(before[1])} -> {_n(after[1])}"


def reasons_cell(entry) -> str:
    breaks = entry["mended"].get("breaks", {}) if _ok(entry["mended"]) else {}
    groups = breaks.get("counting_backend", {}).get("grouped") or breaks.get("explain", {}).get("grouped") or []
    if not groups:
        return "none" if breaks else "?"
    parts = []
    for group in groups:
        mode = "" if group.get("mode", "graph split") == "graph split" else f" [{group['mode']}]"
        reason = group["reason"].replace("|", "\\|")[:70]
        parts.append(f"{group['count']}x `{group['where']}`: {reason}{mode}")
    return "<br>".join(parts)


def outputs_cell(outputs, weights_equal) -> str:
    """`suite.compare_outputs` of a mending arm against the original, and whether the two
    arms' weights were equal."""
    if not outputs:
        return "?"
    if "error" in outputs:
        return "error: " + outputs["error"].strip().splitlines()[-1][:60]
    eager = outputs["eager_exact"]
    eager_text = "eager exact" if eager["equal"] else f"eager differs (max abs {eager.get('max_abs_diff', '?'):.1e})"
    original, mended = outputs["compiled_original"], outputs["compiled_mended"]
    worst = max(c.get("max_abs_diff", math.inf) for c in (original, mended))
    weights = "" if weights_equal else ", weights differ"
    if outputs["equal"] and weights_equal:
        return f"yes ({eager_text}; compiled within tol, max abs {worst:.1e}{weights})"
    between = outputs.get("compiled_mended_vs_original")
    if eager["equal"] and not original["equal"] and between and between["equal"]:
        # Inductor moves both arms alike; mending adds nothing beyond that.
        return (
            f"yes, as compiled ({eager_text}; both compiled arms off eager by up to {worst:.1e}, "
            f"mended vs original compiled max abs {between['max_abs_diff']:.1e}{weights})"
        )
    return f"**no** ({eager_text}; compiled max abs {worst:.1e}{weights})"


def _ratio(mended, original) -> str:
    quotient = _quotient(mended, original)
    return "?" if quotient is None else f"{quotient:.2f}"


def _quotient(mended, original):
    return None if mended is None or not original else mended / original


def _get(record, *keys):
    for key in keys:
        if not isinstance(record, dict) or key not in record:
            return None
        record = record[key]
    return record


def cold_cell(entry) -> str:
    original, mended = _get(entry["original"], "cold_start_s"), _get(entry["mended"], "cold_start_s")
    if original is None or mended is None:
        return "?"
    return f"{original:.1f} / {mended:.1f} ({_ratio(mended, original)})"


def steady_summary(entry) -> dict:
    """Steady-state latency of each arm and the mended / original ratios. With the suite's
    paired rounds (one original and one mended process measured in turns): each arm's median
    over its processes, and the median, lowest and highest of the rounds' own ratios (the
    machine's speed changes between rounds, alike for both processes of one round). Without
    them: the one process per arm."""
    rounds = entry.get("steady_rounds")
    if rounds and all(r and all("median_ms" in p for p in r) for r in rounds.values()):
        pairs = list(zip(rounds["original"], rounds["mended"]))
        latency = [m["median_ms"] / o["median_ms"] for o, m in pairs]
        throughput = [m["throughput_per_s"] / o["throughput_per_s"] for o, m in pairs]
        return {
            "original_ms": statistics.median(p["median_ms"] for p in rounds["original"]),
            "mended_ms": statistics.median(p["median_ms"] for p in rounds["mended"]),
            "ratio": statistics.median(latency),
            "ratio_range": (min(latency), max(latency)),
            "throughput_ratio": statistics.median(throughput),
        }
    original = _get(entry["original"], "steady", "median_ms")
    mended = _get(entry["mended"], "steady", "median_ms")
    if original is None or mended is None:
        return {}
    return {
        "original_ms": original,
        "mended_ms": mended,
        "ratio": mended / original,
        "throughput_ratio": _quotient(
            _get(entry["mended"], "steady", "throughput_per_s"), _get(entry["original"], "steady", "throughput_per_s")
        ),
    }


def steady_cell(entry) -> str:
    summary = steady_summary(entry)
    if not summary:
        return "?"
    cell = f"{summary['original_ms']:.2f} / {summary['mended_ms']:.2f} ({summary['ratio']:.2f}"
    if "ratio_range" in summary:
        low, high = summary["ratio_range"]
        cell += f"; rounds {low:.2f}-{high:.2f}"
    return cell + ")"


def throughput_cell(entry) -> str:
    ratio = steady_summary(entry).get("throughput_ratio")
    return "?" if ratio is None else f"{ratio:.2f}"


def cost_cell(entry) -> str:
    parts = []
    for arm in ("mended", "mended_warm"):
        total, cold = _get(entry[arm], "graphmend", "total_s"), _get(entry[arm], "cold_start_s")
        if total is None or not cold:
            parts.append("?")
            continue
        # Records from before the suite timed `import graphmend` alone (see the legend).
        timed = _get(entry[arm], "graphmend", "import_timed")
        dagger = "" if timed in ("statement", "install") else "†"
        parts.append(f"{total * 1000:.0f} ms{dagger} ({100 * total / cold:.1f}%)")
    if warm_missed(entry):
        parts[-1] += " (missed)"
    return " / ".join(parts)


def warm_missed(entry) -> bool:
    """The warm run mended modules again: its cache key changed (GraphMend was rebuilt
    between the cold and the warm run), so its cost is a cold one."""
    return bool(_get(entry["mended_warm"], "graphmend", "mended"))


def errors(entry) -> list[str]:
    out = []
    for arm in ("original", "mended", "mended_warm"):
        error = (entry.get(arm) or {}).get("error")
        if error:
            lines = error.strip().splitlines() or ["?"]
            out.append(f"{entry['model']} ({arm}): {lines[-1][:200]}")
    return out


# ---------------------------------------------------------------------------------------------
# The document.

HEADER = (
    "| model | breaks before -> after (explain; counting backend) | breaks left after mending "
    "| outputs equal | cold start original / mended, s (ratio) | steady-state latency original "
    "/ mended, ms median (ratio) | throughput ratio | GraphMend cost, cold / warm cache "
    "(% of that cold start) | paper |\n|---|---|---|---|---|---|---|---|---|"
)


def version_section(result) -> list[str]:
    device = result.get("device", "cpu")
    env = _environment(result)
    where = env.get("gpu") if device == "cuda" else f"CPU, {result.get('backend', 'inductor')}"
    lines = [f"### transformers {result['transformers']} ({where})", "", HEADER]
    problems = []
    for entry in result["models"]:
        row = [
            entry["model"],
            breaks_cell(entry),
            reasons_cell(entry),
            outputs_cell(entry.get("outputs"), entry.get("weights_equal")),
            cold_cell(entry),
            steady_cell(entry),
            throughput_cell(entry),
            cost_cell(entry),
            PAPER.get(entry["model"], "n/a"),
        ]
        lines.append("| " + " | ".join(row) + " |")
        problems += errors(entry)
    totals = _totals(result)
    lines += ["", totals]
    if any(warm_missed(e) for e in result["models"]):
        lines += [
            "",
            "(missed): the warm run found no usable cache entries (GraphMend was rebuilt "
            "between the cold and the warm run, which changes every cache key), so that "
            "figure is another cold one.",
        ]
    if problems:
        lines += ["", "Errors:", ""] + [f"- {p}" for p in problems]
    lines += [""] + runtime_section(result)
    lines += ["", f"Run in {result.get('seconds', 0) / 60:.0f} min: `{_command(result)}`", ""]
    return lines + _update_lines(result)


# What each kind of later command measured, for the lines under a version's tables.
UPDATE_WHAT = {
    "run": "Added or run again",
    "steady": "Steady-state rounds measured again",
    "cost": "Cold starts and GraphMend's cost measured again (both arms; steady-state rounds kept)",
    "runtime": "Runtime-aware arm measured again",
}


def _update_lines(result) -> list[str]:
    """The commands run on a result after its first run, in order, each with its models."""
    lines = []
    for update in result.get("updates", []):
        command = _command({**result, "command": update["command"]})
        what = UPDATE_WHAT[update.get("kind", "run")]
        minutes = update["seconds"] / 60
        lines += [f"{what} in {minutes:.0f} min ({', '.join(update['models'])}): `{command}`", ""]
    return lines


COST_HEADER = (
    "| model | cold start original / mended, s (ratio) | GraphMend cost, empty / filled cache "
    "(% of that cold start) | empty cache: modules the import mended / found ready |"
    "\n|---|---|---|---|"
)


def cost_section(result) -> list[str]:
    """A cost run's table (`suite.py run --steady-rounds 0`, `make models-cost`): cold starts
    and GraphMend's cost with the code of that run, the steady state left to the main tables."""
    lines = [f"### transformers {result['transformers']}", "", COST_HEADER]
    shares = []
    for entry in result["models"]:
        cold = entry["mended"]
        ready = f"{_get(cold, 'graphmend', 'mended')} / {_get(cold, 'graphmend', 'cache_hits')}"
        lines.append(f"| {entry['model']} | {cold_cell(entry)} | {cost_cell(entry)} | {ready} |")
        total, start = _get(cold, "graphmend", "total_s"), _get(cold, "cold_start_s")
        if total is not None and start:
            shares.append(100 * total / start)
    if shares:
        lines += ["", f"Empty cache: {min(shares):.1f}-{max(shares):.1f}% of a cold start over {len(shares)} models."]
    lines += ["", f"Run in {result.get('seconds', 0) / 60:.0f} min: `{_command(result)}`", ""]
    return lines + _update_lines(result)


RUNTIME_HEADER = (
    "| model | breaks original -> mended at import -> runtime-aware (explain) | Dynamo options "
    "enabled | not enabled: why | breaks left | outputs equal | `graphmend.compile` time, s "
    "(its cold start, s) | steady state runtime-aware / mended (rounds) | paper |"
    "\n|---|---|---|---|---|---|---|---|---|"
)


def runtime_section(result) -> list[str]:
    """The runtime-aware arm, on the models it ran on (those with breaks left after mending)."""
    entries = [e for e in result["models"] if e.get("runtime")]
    if not entries:
        return []
    lines = [
        f"#### Runtime-aware compile, transformers {result['transformers']}",
        "",
        "`graphmend.compile(model, example_kwargs=inputs)` with transformers mended at import, on "
        "the models with breaks left after mending: it profiles the model on its inputs, then "
        "tries the Dynamo options those breaks call for and keeps the fewest that remove "
        "breaks and keep the outputs (docs/MENDER.md, runtime-aware mode). Breaks are counted "
        "under the options it enabled; outputs are compared with the original arm's as in "
        "the table above.",
        "",
        RUNTIME_HEADER,
    ]
    for entry in entries:
        lines.append("| " + " | ".join(runtime_row(entry)) + " |")
    return lines + [""]


def runtime_row(entry) -> list[str]:
    record = entry["runtime"]
    if not _ok(record):
        lines = record.get("error", "?").strip().splitlines() or ["?"]
        return [entry["model"], f"error: {lines[-1][:80]}"] + [""] * 6 + [PAPER.get(entry["model"], "n/a")]
    report = record["runtime"]
    counts = [_breaks(entry["original"])[0], _breaks(entry["mended"])[0], _breaks(record)[0]]
    rejected = "<br>".join(f"{o}: {why[:90]}" for o, why in sorted(report["rejected"].items()))
    weights_equal = record.get("weights_sha256") == entry["original"].get("weights_sha256")
    equal = outputs_cell(entry.get("runtime_outputs"), weights_equal)
    wrap, cold = _get(record, "compile_wrap_s"), _get(record, "cold_start_s")
    rounds = entry.get("runtime_rounds", {})
    ratios = rounds.get("ratios") or []
    steady = "n/a (nothing enabled)" if not report["enabled"] else "?"
    if ratios:
        steady = f"{rounds['median_ratio']:.2f} ({min(ratios):.2f}-{max(ratios):.2f}, {len(ratios)} rounds)"
    return [
        entry["model"],
        " -> ".join(_n(c) for c in counts),
        ", ".join(f"`{o}`" for o in report["enabled"]) or "none",
        rejected.replace("|", "\\|") or "-",
        "<br>".join(report["left"]).replace("|", "\\|") or "none",
        equal,
        "?" if wrap is None else f"{wrap:.1f} ({cold:.1f})",
        steady,
        PAPER.get(entry["model"], "n/a"),
    ]


def _totals(result) -> str:
    before = after = fixed_models = measured = 0
    for entry in result["models"]:
        b, a = _breaks(entry["original"])[0], _breaks(entry["mended"])[0]
        if b is None or a is None:
            continue
        measured += 1
        before, after = before + b, after + a
        fixed_models += b > 0 and a == 0
    broken = sum(1 for e in result["models"] if (_breaks(e["original"])[0] or 0) > 0)
    return (
        f"Totals (explain): {before} breaks before, {after} after ({before - after} removed) over "
        f"{measured} models; models that break: {broken}, fully fixed: {fixed_models}."
    )


def _command(result) -> str:
    prefix = f"PYTHONPATH={result['pythonpath']} " if result.get("pythonpath") else ""
    return prefix + result.get("command", "?")


def _environment(result) -> dict:
    for entry in result["models"]:
        for arm in ("original", "mended"):
            env = (entry.get(arm) or {}).get("environment")
            if env:
                return env
    return {}


def machine_lines(results) -> list[str]:
    env = next((_environment(r) for r in results if _environment(r)), {})
    lines = [
        f"- CPU: {env.get('cpu', '?')}, {env.get('cpu_count', '?')} cores; torch threads in the "
        f"timed runs: {env.get('torch_threads', '?')}",
        f"- torch {env.get('torch', '?')}, Python {env.get('python', '?')}",
    ]
    gpus = sorted({_environment(r).get("gpu") for r in results if r.get("device") == "cuda"} - {None})
    if gpus:
        lines.append(f"- GPU: {', '.join(gpus)}")
    return lines


# What the numbers say: written by hand after a run, kept beside the generator so that a new
# report keeps it (re-read it against the new tables when the numbers move).
ANALYSIS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "analysis.md")


def analysis_lines() -> list[str]:
    if not os.path.exists(ANALYSIS):
        return []
    with open(ANALYSIS, encoding="utf-8") as handle:
        return [handle.read().rstrip("\n"), ""]


def document(results, plot_name, costs=()) -> str:
    cpu = [r for r in results if r.get("device", "cpu") == "cpu"]
    gpu = [r for r in results if r.get("device") == "cuda"]
    tolerances = results[0].get("tolerances", {})
    tol_text = "; ".join(f"{k}: rtol={v['rtol']:g}, atol={v['atol']:g}" for k, v in tolerances.items())
    lines = [
        "# Model suite results",
        "",
        "Each model of `bench/models/zoo.py` in two arms with identical weights and inputs "
        "(`zoo.build(name, seed=0)`; the state_dict digests are compared): **original** is "
        "`torch.compile(model)`; **mended** installs `graphmend.install([\"transformers\"])` "
        "before transformers is imported and compiles with `graphmend.compile(model)`. Every arm "
        "runs in a fresh process with an empty `TORCHINDUCTOR_CACHE_DIR`; the mended arm runs "
        "twice, with an empty GraphMend cache (cold) and with the cache the cold run filled (warm).",
        "",
        "- **breaks**: `torch._dynamo.explain` break count; and FX graphs handed to a counting "
        "backend minus one. Left after mending: the counting backend's breaks grouped by "
        "innermost transformers line (`Nx file:line: reason`).",
        "- **outputs equal**: the mended arm's eager output against the original's, exactly "
        f"(`torch.equal`); both compiled outputs against the original eager output within {tol_text}. "
        "*yes, as compiled*: the compiler moves both arms' outputs past that tolerance alike, and "
        "the mended arm's compiled output is within it of the original arm's.",
        "- **cold start**: process start (the first statement, before importing torch) to the "
        "first compiled output: imports, the hook, building the model, compiling and the first call.",
        "- **steady state**: measured in *paired rounds*. A round starts one original and one "
        "mended process together; each compiles from its arm's own Inductor cache and warms up "
        "for at least 1 s, then the two take turns on one CPU, 50 ms each, for 2 s of calls "
        "each, so a change in the machine's speed falls on both alike. Latency: the median call "
        "under `torch.no_grad()` in each process, then the median over each arm's processes. "
        "The ratio is mended / original within each round (below 1 is faster): the median of "
        "the rounds' ratios, then their lowest and highest. Throughput: examples over the "
        "summed call times, the median of the rounds' ratios (above 1 is faster). Why: on this "
        "machine calls run at one of two speeds about 2x apart for milliseconds to seconds at "
        "a time, whichever code runs; a few dozen calls per process, or arms measured one "
        "after the other, land on either.",
        "- **GraphMend cost**: time in the import hook (mending or cache reads) + "
        "`graphmend.compile`'s mending + importing graphmend, in ms and as a share of that "
        "arm's cold start. Importing graphmend is timed after torch: `import graphmend`, "
        "`graphmend.install` (the hook's share of it counted as the hook's) and importing "
        "`graphmend.api` (rows run before it was loaded on first use timed the "
        "`import graphmend` statement alone, which loaded it); a cost marked † timed it from the arm script's first statement, which "
        "also charged GraphMend with the script's own imports (about 35 ms too much). "
        "Garbage collections that happen to run inside the hook are left "
        "out where the hook recorded them (rows run since it does): the interpreter collects "
        "whoever allocates last; a full collection over torch's heap takes 0.2-0.3 s, and "
        "both arms spend 1.4-2.8 s collecting in all. On a first start the hook's helper "
        "process mends ahead of the import (rows run since it exists, docs/HOOK.md): its "
        "time runs beside the import, on another core, and is not in this figure "
        "(`bench/hook_cost.py` measures its CPU time); the cold start includes whatever it "
        "costs the import.",
        "",
        "Machine:",
        "",
        *machine_lines(results),
        "",
        *analysis_lines(),
    ]
    if cpu:
        lines += ["## CPU (Inductor)", ""]
        for result in cpu:
            lines += version_section(result)
    if gpu:
        lines += ["## GPU", ""]
        for result in gpu:
            lines += version_section(result)
    if costs:
        lines += [
            "## GraphMend's cost, measured again",
            "",
            "Both arms again, without the steady-state rounds (`make models-cost`), for "
            "GraphMend's own cost with its code at the time: the tables above keep theirs. "
            "With an empty cache, the modules the import found ready are those the helper "
            "process mended ahead of it (docs/HOOK.md).",
            "",
        ]
        for result in costs:
            lines += cost_section(result)
    lines += [
        "## The paper",
        "",
        "The paper column gives the GraphMend paper's (arXiv 2509.16248) result for the real "
        "checkpoint a zoo model scales down, where our notes have one. " + PAPER_TOTALS,
        "",
        f"![breaks and ratios]({plot_name})",
        "",
        "Reproduce: `make models` (both transformers versions, CPU) or `make models-gpu`; then "
        f"`python bench/models/suite.py report {' '.join(os.path.basename(r['path']) for r in results)}`.",
        "",
    ]
    return "\n".join(lines)


def plot(results, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(results), 2, figsize=(14, 3.6 * len(results)), squeeze=False)
    for row, result in zip(axes, results):
        names = [e["model"] for e in result["models"]]
        xs = range(len(names))
        before = [_breaks(e["original"])[0] or 0 for e in result["models"]]
        after = [_breaks(e["mended"])[0] or 0 for e in result["models"]]
        label = f"transformers {result['transformers']} ({result.get('device', 'cpu')})"
        row[0].bar([x - 0.2 for x in xs], before, 0.4, label="original")
        row[0].bar([x + 0.2 for x in xs], after, 0.4, label="mended")
        row[0].set_title(f"graph breaks (explain), {label}")
        steady = [steady_summary(e).get("ratio", float("nan")) for e in result["models"]]
        cold = [_num(_ratio(_get(e["mended"], "cold_start_s"), _get(e["original"], "cold_start_s"))) for e in result["models"]]
        row[1].bar([x - 0.2 for x in xs], steady, 0.4, label="steady-state latency")
        row[1].bar([x + 0.2 for x in xs], cold, 0.4, label="cold start")
        row[1].axhline(1.0, color="grey", linewidth=0.8)
        row[1].set_title(f"mended / original (below 1: faster), {label}")
        for axis in row:
            axis.set_xticks(list(xs), names, rotation=45, ha="right", fontsize=8)
            axis.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _num(text) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def write(paths, out, plot_path, cost_paths=()) -> None:
    results = load(paths)
    costs = load(cost_paths)
    directory = os.path.dirname(out)
    if directory:
        os.makedirs(directory, exist_ok=True)
    plot(results, plot_path)
    kept = [_section_in(_read(out), name) for name in KEPT_SECTIONS]
    with open(out, "w") as handle:
        handle.write(document(results, os.path.relpath(plot_path, directory or "."), costs))
        handle.writelines("\n" + text for text in kept if text)


# Sections other scripts write into the report (between `<!-- NAME:begin` and
# `<!-- NAME:end -->`), kept when `write` rewrites it: bench/models/lm_survey.py's,
# bench/models/hf_survey.py's and bench/peer.py's.
KEPT_SECTIONS = ("lm-survey", "hf-survey", "peer")


def _read(path) -> str:
    try:
        with open(path) as handle:
            return handle.read()
    except FileNotFoundError:
        return ""


def _section_bounds(text, name):
    """(start, end) of section `name` in `text`, markers included; None if absent."""
    start = text.find(f"<!-- {name}:begin")
    end_marker = f"<!-- {name}:end -->"
    end = text.find(end_marker, max(start, 0))
    if start < 0 or end < 0:
        return None
    end += len(end_marker)
    return start, end + (text[end : end + 1] == "\n")


def _section_in(text, name) -> str:
    bounds = _section_bounds(text, name)
    return text[bounds[0] : bounds[1]] if bounds else ""


def replace_section(path, name, section) -> None:
    """Writes `section` (markers included) into `path` in place of section `name`, or at
    its end."""
    text = _read(path)
    bounds = _section_bounds(text, name)
    if bounds:
        text = text[: bounds[0]] + section + text[bounds[1] :]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + section
    with open(path, "w") as handle:
        handle.write(text)
