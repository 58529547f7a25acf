"""The LM survey: every causal and seq2seq LM architecture of the installed transformers,
built tiny from its config class (`zoo.tiny_config`, seeded, never the hub), plain
`torch.compile` against `graphmend.compile`: graph breaks before and after, and outputs.

    python bench/models/lm_survey.py run --jobs 2 --out bench/models/results/lm-survey-5.23.0.json
    python bench/models/lm_survey.py run --models gpt2,t5 --out /tmp/s.json
    python bench/models/lm_survey.py report bench/models/results/lm-survey-5.23.0.json --out docs/RESULTS.md
    python bench/models/lm_survey.py one --arch gpt2:GPT2LMHeadModel --out /tmp/gpt2.json

The architectures are the entries of MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and
MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES (`model_type:ClassName`; a model type in both
mappings is surveyed as both classes). Each runs in its own process with a timeout, forked
from the survey's process once that has imported torch, transformers and GraphMend and run
Dynamo once (`one` runs one architecture in a fresh interpreter). In that process, with one seed for weights and inputs, under `torch.no_grad()`:

- plain: the eager output; `torch._dynamo.explain(model)` (graphs, breaks, reasons); and
  `torch.compile(model, backend=counter)` (a backend that counts FX graphs and runs them
  unchanged): its graphs, its logged breaks and its output.
- mended: `graphmend.mend(model)`'s eager output; explain of it; and
  `graphmend.compile(model, backend=counter)`: its graphs, logged breaks and output.
  No import hook: `graphmend.compile` mends every function the model reaches (the model
  suite, bench/models/suite.py, mends transformers at import instead).

Outputs: the mended eager output against the plain one exactly (`torch.equal`, every tensor
of the output); both compiled outputs against the plain eager one within suite.TOLERANCES.

`report` writes the Markdown section between LM_SURVEY_BEGIN and LM_SURVEY_END into a file
(docs/RESULTS.md), replacing the section there; `suite.py report` keeps it when it rewrites
the file.
"""

from __future__ import annotations

import argparse
import collections
import inspect
import json
import os
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

SEED = 0
BATCH = 2
SOURCE_LEN = 8
TARGET_LEN = 6
SURVEY_VOCAB = 256
DEFAULT_TIMEOUT_S = 180
SECTION = "lm-survey"


# ---------------------------------------------------------------------------------------------
# Architectures.


def architectures() -> list[dict]:
    """Every (kind, model type, class) of the two LM mappings, in mapping order."""
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES,
    )

    rows = []
    for kind, mapping in (("causal", MODEL_FOR_CAUSAL_LM_MAPPING_NAMES), ("seq2seq", MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES)):
        for model_type, class_name in mapping.items():
            rows.append({"arch": f"{model_type}:{class_name}", "kind": kind, "model_type": model_type, "class": class_name})
    return rows


def select(rows: list[dict], names: str | None) -> list[dict]:
    """`--models`: comma-separated model types, class names or `type:Class` keys."""
    if not names:
        return rows
    wanted = set(names.split(","))
    chosen = [r for r in rows if wanted & {r["arch"], r["model_type"], r["class"]}]
    found = {key for r in chosen for key in (r["arch"], r["model_type"], r["class"])}
    if wanted - found:
        raise SystemExit(f"unknown architectures: {sorted(wanted - found)}")
    return chosen


def build(row: dict, seed: int = SEED):
    """(model in eval mode, float32, inputs) for one architecture, tiny and seeded."""
    import torch
    import transformers
    from transformers import CONFIG_MAPPING

    import zoo

    config = zoo.tiny_config(CONFIG_MAPPING[row["model_type"]], vocab=SURVEY_VOCAB)
    if row["kind"] == "causal" and not getattr(config, "is_encoder_decoder", False):
        config.is_decoder = True  # encoder families' *ForCausalLM classes want a decoder
    torch.manual_seed(seed)
    model = getattr(transformers, row["class"])(config).to(torch.float32).eval()
    generator = torch.Generator().manual_seed(seed)
    top = SURVEY_VOCAB - 16  # zoo.tiny_config_dict moves special ids above this
    accepted = inspect.signature(model.forward).parameters
    kwargs = {"input_ids": zoo._token_ids(generator, BATCH, SOURCE_LEN, vocab=top)}
    if "attention_mask" in accepted:
        kwargs["attention_mask"] = zoo._padded_mask(BATCH, SOURCE_LEN)
    if row["kind"] == "seq2seq" and "decoder_input_ids" in accepted:
        kwargs["decoder_input_ids"] = zoo._token_ids(generator, BATCH, TARGET_LEN, vocab=top)
    return model, kwargs


# ---------------------------------------------------------------------------------------------
# One architecture, in its own process.


def survey_one(row: dict) -> dict:
    import torch
    import torch._dynamo

    import survey
    from suite import _close, _exact, _flatten

    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    record = dict(row)
    started = time.perf_counter()
    try:
        model, kwargs = build(row)
        record.update(survey._describe_setup(model, kwargs))
        with torch.no_grad():
            eager = _flatten(model(**kwargs))
    except Exception as error:  # an architecture that does not build tiny is a result
        record.update(status="skipped", reason=_short_error(error))
        record["seconds"] = round(time.perf_counter() - started, 2)
        return record

    import graphmend
    from graphmend import runtime

    def mended_compile(m, backend):
        return graphmend.compile(m, backend=backend)

    arms = {}
    for arm in ("plain", "mended"):
        arm_started = time.perf_counter()
        result = arms[arm] = {}
        try:
            if arm == "plain":
                target, compiler = model, torch.compile
            else:
                target, compiler = graphmend.mend(model), mended_compile
                with torch.no_grad():
                    result["eager_equal"] = _exact(eager, _flatten(target(**kwargs)))
                runtime.flush()
            result["explain"] = survey.explain(target, kwargs)
            runtime.flush()
            counted, output = survey.count_graphs_with_output(model, kwargs, compiler)
            result["counting_backend"] = counted
            result["compiled_close"] = _close(eager, _flatten(output))
        except Exception as error:
            result["error"] = _short_error(error)
        for item in result.get("explain", {}).get("breaks", []):
            item.pop("reason_full", None)
        result["seconds"] = round(time.perf_counter() - arm_started, 2)
    record.update(arms)
    record["status"] = "error" if any("error" in a for a in arms.values()) else "ok"
    record["seconds"] = round(time.perf_counter() - started, 2)
    return record


def _short_error(error: BaseException) -> str:
    lines = [line.strip() for line in f"{type(error).__name__}: {error}".splitlines() if line.strip()]
    return " ".join(lines[:3])[:300]  # some errors say what went wrong on their second line


# ---------------------------------------------------------------------------------------------
# The survey: one process per architecture.


def prepare_parent() -> None:
    """Imports what every architecture's process needs and runs Dynamo once, before the
    processes are forked from this one: each then starts from a warm interpreter."""
    import torch
    import torch._dynamo
    import transformers  # noqa: F401
    import transformers.models.auto.modeling_auto  # noqa: F401

    import graphmend
    import graphmend.compiling  # noqa: F401
    import graphmend.runtime  # noqa: F401
    import suite  # noqa: F401
    import survey  # noqa: F401

    torch.set_num_threads(1)  # forked children must not inherit a started thread pool
    warnings.filterwarnings("ignore")
    torch._dynamo.explain(lambda x: x + 1)(torch.ones(1))
    torch._dynamo.reset()


def survey_forked(rows: list[dict], jobs: int, timeout: float, done_callback) -> None:
    """`survey_one` for each row in a process forked from this one, `jobs` at a time; a
    process past `timeout` seconds is killed, one that dies without a record is a crash."""
    pending, running = list(rows), {}
    directory = tempfile.mkdtemp(prefix="lm-survey-")
    while pending or running:
        while pending and len(running) < jobs:
            row = pending.pop(0)
            out = os.path.join(directory, f"{len(pending)}.json")
            pid = os.fork()
            if pid == 0:  # the child: survey, write, leave without running the parent's exit code
                status = 1
                try:
                    record = survey_one(row)
                    with open(out, "w") as handle:
                        json.dump(record, handle, indent=1)
                    status = 0
                finally:
                    os._exit(status)
            running[pid] = (row, out, time.perf_counter())
        time.sleep(0.2)
        for pid, (row, out, started) in list(running.items()):
            finished, status = os.waitpid(pid, os.WNOHANG)
            elapsed = round(time.perf_counter() - started, 2)
            if not finished and elapsed < timeout:
                continue
            if not finished:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                record = {**row, "status": "timeout", "reason": f"no result in {timeout:.0f} s", "seconds": elapsed}
            elif os.path.exists(out):
                with open(out) as handle:
                    record = json.load(handle)
            else:
                record = {**row, "status": "crashed", "reason": f"process ended with status {status:#x}", "seconds": elapsed}
            del running[pid]
            done_callback(record)


def environment() -> dict:
    from suite import _environment

    return {**_environment("cpu"), "graphmend": _graphmend_version()}


def _graphmend_version() -> str:
    import graphmend

    return f"{graphmend.__version__} ({os.path.dirname(graphmend.__file__)})"


def run_main(args) -> None:
    import transformers

    rows = select(architectures(), args.models)
    out = args.out or os.path.join(HERE, "results", f"lm-survey-{transformers.__version__}.json")
    started = time.perf_counter()
    records = {}

    def done(record):
        records[record["arch"]] = record
        print(f"[{len(records)}/{len(rows)}] {summary_line(record)}", file=sys.stderr, flush=True)

    prepare_parent()
    survey_forked(rows, args.jobs, args.timeout, done)
    seconds = round(time.perf_counter() - started, 1)
    if args.update:  # these records replace theirs in the earlier result
        with open(out) as handle:
            result = json.load(handle)
        result["models"] = [records.get(r["arch"], r) for r in result["models"]]
        rerun = {"command": args.command_line, "seconds": seconds, "architectures": len(rows)}
        result.setdefault("reruns", []).append(rerun)
    else:
        result = {
            "command": args.command_line,
            "environment": environment(),
            "jobs": args.jobs,
            "timeout_s": args.timeout,
            "seconds": seconds,
            "models": [records[row["arch"]] for row in rows],
        }
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as handle:
        json.dump(result, handle, indent=1)
        handle.write("\n")
    print(summary(result["models"]), file=sys.stderr)


def summary_line(record: dict) -> str:
    if record["status"] not in ("ok", "error"):
        return f"{record['arch']}: {record['status']}: {record.get('reason', '')}"
    cells = row_cells(record)
    return f"{record['arch']}: breaks {cells['breaks']} graphs {cells['graphs']} equal {cells['equal']} ({record['seconds']} s)"


# ---------------------------------------------------------------------------------------------
# Report.


def _counts(record: dict, arm: str) -> tuple:
    """(explain breaks, counting-backend graphs) of one arm, None where it failed."""
    result = record.get(arm, {})
    return result.get("explain", {}).get("graph_break_count"), result.get("counting_backend", {}).get("graphs")


def outputs_equal(record: dict) -> tuple:
    """(mended eager == plain eager, both compiled outputs within tolerance), None if unknown."""
    plain, mended = record.get("plain", {}), record.get("mended", {})
    eager = mended.get("eager_equal", {}).get("equal")
    compiled = [arm.get("compiled_close", {}).get("equal") for arm in (plain, mended)]
    return eager, (None if None in compiled else all(compiled))


def _yes(value) -> str:
    return {True: "yes", False: "**NO**", None: "-"}[value]


def row_cells(record: dict) -> dict:
    breaks_before, graphs_before = _counts(record, "plain")
    breaks_after, graphs_after = _counts(record, "mended")
    eager, compiled = outputs_equal(record)
    show = lambda v: "-" if v is None else str(v)  # noqa: E731
    return {
        "breaks": f"{show(breaks_before)} → {show(breaks_after)}",
        "graphs": f"{show(graphs_before)} → {show(graphs_after)}",
        "equal": f"{_yes(eager)} / {_yes(compiled)}",
    }


def left_after(record: dict, limit: int = 3) -> list[str]:
    """The mended arm's logged breaks by innermost location and reason (graph splits and
    skipped frames together), most frequent first."""
    merged: dict = collections.Counter()
    for group in record.get("mended", {}).get("counting_backend", {}).get("grouped") or []:
        merged[(group["where"], group["reason"])] += group["count"]
    return [f"{count}x `{where}`: {_shorten(reason, 70)}" for (where, reason), count in merged.most_common(limit)]


def _shorten(text: str, width: int) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def summary(records: list[dict]) -> str:
    built = [r for r in records if r["status"] in ("ok", "error")]
    measured = [r for r in built if None not in _counts(r, "plain")]
    breaking = [r for r in measured if _counts(r, "plain")[0] > 0]
    zero = [r for r in breaking if _counts(r, "mended")[0] == 0]
    equal = [r for r in built if outputs_equal(r) == (True, True)]
    return (
        f"{len(records)} architectures, {len(built)} built, {len(breaking)} break before mending, "
        f"{len(zero)} of those reach zero breaks, {len(equal)} of {len(built)} built have all outputs equal"
    )


def section(result: dict) -> str:
    env, records = result["environment"], result["models"]
    lines = [
        f"<!-- {SECTION}:begin (bench/models/lm_survey.py report; edits here are overwritten) -->",
        f"## LM survey: every causal and seq2seq LM of transformers {env['transformers']}",
        "",
        "Every architecture of transformers' `MODEL_FOR_CAUSAL_LM_MAPPING_NAMES` and "
        "`MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES`, built tiny from its config class "
        f"(`zoo.tiny_config`: the defaults with hidden size {64}, 4 heads, 2 layers, a vocabulary "
        f"of {SURVEY_VOCAB}, 4 experts; seed {SEED}; never the hub), inputs `input_ids` "
        f"[{BATCH}, {SOURCE_LEN}] with a padded `attention_mask` where `forward` takes one and "
        f"`decoder_input_ids` [{BATCH}, {TARGET_LEN}] for seq2seq. **plain**: "
        "`torch._dynamo.explain(model)` and `torch.compile(model, backend=counter)` (a backend "
        "that counts FX graphs and runs them as they are); **mended**: explain of "
        "`graphmend.mend(model)` and `graphmend.compile(model, backend=counter)`, without the "
        "import hook (graphmend.compile mends what the model reaches). Breaks: explain's break "
        "count; graphs: the counting backend's. Outputs equal: the mended eager output against "
        "the plain one exactly (every tensor, `torch.equal`) / both compiled outputs against the "
        "plain eager one within float32 rtol=1e-4, atol=1e-5. Left: the mended arm's logged "
        "breaks by innermost transformers line. Each architecture runs in its own process, forked "
        "from one that has imported torch, transformers and GraphMend "
        f"(timeout {result['timeout_s']:.0f} s); time: that process's, from building the model to "
        "the last comparison (importing torch and transformers not included).",
        "",
        f"Command: `{result['command']}` ({result['seconds'] / 60:.0f} min, {result['jobs']} jobs)"
        + "".join(f", then `{r['command']}` ({r['architectures']} architectures again, {r['seconds'] / 60:.0f} min)"
                  for r in result.get("reruns", []))
        + ". "
        f"Machine: {env.get('cpu')}, {env.get('cpu_count', env.get('cores'))} cores; torch {env['torch']}, "
        f"Python {env['python']}, transformers {env['transformers']}.",
        "",
        f"**{summary(records)}.**",
        "",
    ]
    differing = [r for r in records if False in outputs_equal(r)]
    if differing:
        lines += ["**Output differences** (mended against plain):", ""]
        for record in differing:
            lines.append(f"- `{record['arch']}`: {_difference(record)}")
        lines.append("")
    left = collections.defaultdict(list)
    for record in records:
        if (_counts(record, "mended")[0] or 0) > 0:
            reasons = {g["reason"] for g in record["mended"].get("counting_backend", {}).get("grouped") or []}
            for reason in sorted(reasons) or ["(no break logged)"]:
                left[reason].append(f"`{record['arch']}`")
    if left:
        lines += ["Breaks left after mending, by Dynamo's reason:", ""]
        lines += [f"- {_shorten(reason, 100)}: {', '.join(archs)}" for reason, archs in sorted(left.items())]
        lines.append("")
    lines += [
        "| architecture | breaks before → after | graphs before → after | outputs equal (eager / compiled) | time | left after mending |",
        "|---|---|---|---|---|---|",
    ]
    built = [r for r in records if r["status"] in ("ok", "error")]
    for record in sorted(built, key=lambda r: (-(_counts(r, "plain")[0] or 0), r["arch"])):
        cells = row_cells(record)
        left = "<br>".join(left_after(record))
        errors = [f"{arm}: {_shorten(record[arm]['error'], 90)}" for arm in ("plain", "mended") if "error" in record.get(arm, {})]
        left = "<br>".join(filter(None, [left, *errors]))
        lines.append(
            f"| `{record['arch']}` | {cells['breaks']} | {cells['graphs']} | {cells['equal']} | "
            f"{record['seconds']:.0f} s | {left} |"
        )
    skipped = [r for r in records if r["status"] not in ("ok", "error")]
    if skipped:
        lines += ["", f"Not surveyed ({len(skipped)}): the architecture did not build tiny, or needs "
                  "inputs other than token ids (images, audio), or its process timed out or crashed.", "",
                  "| architecture | skipped: reason |", "|---|---|"]
        for record in skipped:
            lines.append(f"| `{record['arch']}` | {record['status']}: {_shorten(record.get('reason', ''), 160)} |")
    lines += ["", f"<!-- {SECTION}:end -->"]
    return "\n".join(lines) + "\n"


def _difference(record: dict) -> str:
    parts = []
    eager = record.get("mended", {}).get("eager_equal", {})
    if eager.get("equal") is False:
        parts.append(f"eager differs (max abs diff {eager.get('max_abs_diff', eager.get('why'))})")
    for arm in ("plain", "mended"):
        close = record.get(arm, {}).get("compiled_close", {})
        if close.get("equal") is False:
            parts.append(f"{arm} compiled outside tolerance ({close.get('max_abs_diff', close.get('why'))}, {close.get('failing')})")
    return "; ".join(parts)


def report_main(args) -> None:
    import suite_report

    with open(args.result) as handle:
        result = json.load(handle)
    suite_report.replace_section(args.out, SECTION, section(result))


# ---------------------------------------------------------------------------------------------


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    run = sub.add_parser("run", help="the survey: one process per architecture, JSON out")
    run.add_argument("--models", help="comma-separated model types, classes or type:Class (default: all)")
    run.add_argument("--jobs", type=int, default=1, help="architectures surveyed at once")
    run.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per architecture")
    run.add_argument("--out", help="default: bench/models/results/lm-survey-<transformers>.json")
    run.add_argument("--update", action="store_true", help="replace these architectures' records in --out")
    one = sub.add_parser("one", help="one architecture in this process")
    one.add_argument("--arch", required=True)
    one.add_argument("--out", required=True)
    report = sub.add_parser("report", help="the Markdown section, into --out")
    report.add_argument("result")
    report.add_argument("--out", default=os.path.join(REPO, "docs", "RESULTS.md"))
    args = parser.parse_args(argv)
    args.command_line = "python bench/models/lm_survey.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.step == "run":
        run_main(args)
    elif args.step == "one":
        (row,) = select(architectures(), args.arch)
        record = survey_one(row)
        with open(args.out, "w") as handle:
            json.dump(record, handle, indent=1)
    else:
        report_main(args)


if __name__ == "__main__":
    main()
