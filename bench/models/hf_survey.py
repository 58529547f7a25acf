"""The transformers survey: every base `*Model`, `*ForCausalLM` and `*ForConditionalGeneration`
class of the installed transformers, built tiny from its config class (hf_build.py: seeded,
never the hub), in eval and in train mode, plain `torch.compile` against the import-hook-mended
model compiled by `torch.compile` (hf_arm.py): graph breaks before and after by Dynamo's reason
family and GraphMend's diagnostic, and outputs, gradients, prints, logs and exceptions of the
mended runs against the original's.

    python bench/models/hf_survey.py list [--sample] [--json]
    python bench/models/hf_survey.py run --sample --out build/hf-survey/sample.jsonl
    python bench/models/hf_survey.py run --shard 3/8 --out build/hf-survey/all.jsonl
    python bench/models/hf_survey.py run --classes BertModel,ViTModel --modes train --out /tmp/s.jsonl
    python bench/models/hf_survey.py report build/hf-survey/all.jsonl --out docs/RESULTS.md

`run` appends one JSON line per (class, mode) as it finishes, and skips the pairs a line in
`--out` already has: a run that is stopped resumes where it was, and shards may share a
file. Each arm runs in a process forked from the survey's (which has imported torch and
GraphMend, never transformers) with `--timeout` seconds; a line per `run` call records its
command, machine and time. `report` merges any number of such files.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

MODES = ("eval", "train")
# Name endings of the classes surveyed, most specific first, with the kind they name.
KINDS = (("ForConditionalGeneration", "conditional-generation"), ("ForCausalLM", "causal-lm"), ("Model", "base"))
SAMPLED_MODALITIES = ("text", "vision", "audio", "multimodal", "time-series")
SAMPLE_PER_MODALITY = 4
DEFAULT_TIMEOUT_S = 300
SECTION = "hf-survey"
LOOP_SKIP = "graph break in loop"  # Dynamo's reason for a frame it skipped (GB7000)
# What the break sites of the surveyed classes need, read from the data and the mender's
# diagnostics (written by hand, kept in the generated section by `report`).
FINDINGS = os.path.join(HERE, "hf_findings.md")


# ---------------------------------------------------------------------------------------------
# Which classes.


def enumerate_classes() -> list[dict]:
    """Every class of `transformers` whose name ends in Model, ForCausalLM or
    ForConditionalGeneration and that is a PreTrainedModel (not an Auto* factory, not an
    abstract `*PreTrainedModel` base or an alias of one), sorted by name, with its kind and
    the modality of its inputs. Imports transformers: never in the survey's own process."""
    import warnings

    import transformers
    from transformers import PreTrainedModel

    import hf_build

    warnings.filterwarnings("ignore")
    rows = []
    for name in sorted(dir(transformers)):
        kind = next((k for suffix, k in KINDS if name.endswith(suffix)), None)
        if kind is None or name.startswith("Auto"):
            continue
        cls = getattr(transformers, name)
        if not (isinstance(cls, type) and issubclass(cls, PreTrainedModel)):
            continue
        if cls.__name__.endswith(("PreTrainedModel", "PretrainedModel")):
            continue
        rows.append({"class": name, "kind": kind, "modality": hf_build.modality(cls)})
    return rows


def classes_from_child() -> list[dict]:
    """`enumerate_classes` in a child interpreter, so that this one stays free of
    transformers (each arm imports it afresh, with or without the hook)."""
    done = subprocess.run(
        [sys.executable, __file__, "list", "--json"], capture_output=True, text=True, check=True, timeout=600
    )
    return json.loads(done.stdout)


def sample(rows: list[dict]) -> list[dict]:
    """The fixed sample: for each modality of SAMPLED_MODALITIES, SAMPLE_PER_MODALITY classes
    evenly spaced over its classes sorted by name (the middle of each of as many equal
    stretches). No class is chosen by how it behaves."""
    chosen = []
    for kind in SAMPLED_MODALITIES:
        group = [r for r in rows if r["modality"] == kind]
        step = len(group) / SAMPLE_PER_MODALITY
        chosen += [group[int((i + 0.5) * step)] for i in range(min(SAMPLE_PER_MODALITY, len(group)))]
    return sorted(chosen, key=lambda r: r["class"])


def shard(rows: list[dict], spec: str | None) -> list[dict]:
    """`--shard i/n` (1 <= i <= n): every n-th class from the i-th, so shards mix modalities."""
    if not spec:
        return rows
    index, count = (int(part) for part in spec.split("/"))
    if not 1 <= index <= count:
        raise SystemExit(f"--shard {spec}: want i/n with 1 <= i <= n")
    return rows[index - 1 :: count]


def add_selection_arguments(parser) -> None:
    """The options `select` reads: --classes, --sample, --shard, --limit."""
    parser.add_argument("--shard", help="i/n: every n-th class from the i-th (1-based)")
    parser.add_argument("--sample", action="store_true", help="only the fixed sample (hf_survey.sample)")
    parser.add_argument("--classes", help="comma-separated class names")
    parser.add_argument("--limit", type=int, help="at most this many classes")


def select(rows: list[dict], args) -> list[dict]:
    if args.classes:
        wanted = args.classes.split(",")
        unknown = set(wanted) - {r["class"] for r in rows}
        if unknown:
            raise SystemExit(f"unknown classes: {sorted(unknown)}")
        rows = [r for r in rows if r["class"] in wanted]
    if args.sample:
        rows = sample(rows)
    rows = shard(rows, args.shard)
    return rows[: args.limit] if args.limit else rows


# ---------------------------------------------------------------------------------------------
# Running: one forked process per arm.


def prepare_parent() -> None:
    """Imports torch and GraphMend and runs Dynamo once before the arms are forked from this
    process, so each starts warm; transformers is left for each arm to import."""
    import warnings

    import torch
    import torch._dynamo

    import graphmend  # noqa: F401

    torch.set_num_threads(1)  # forked children must not inherit a started thread pool
    warnings.filterwarnings("ignore")
    torch.compile(lambda x: x + 1, backend="eager")(torch.ones(1))
    torch._dynamo.reset()


def forked(work, timeout: float) -> dict:
    """`work()`'s record, computed in a process forked from this one; a process past
    `timeout` seconds is killed, one that dies without a record crashed."""
    handle, out = tempfile.mkstemp(prefix="hf-survey-", suffix=".json")
    os.close(handle)
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: leave without running the parent's exit code
        status = 1
        try:
            try:
                record = work()
            except Exception as error:  # the survey's own failure, recorded with the model
                import hf_arm

                record = {"status": "error", "reason": hf_arm.short_error(error)}
            with open(out, "w") as stream:
                json.dump(record, stream)
            status = 0
        finally:
            os._exit(status)
    while True:
        finished, status = os.waitpid(pid, os.WNOHANG)
        elapsed = round(time.perf_counter() - started, 2)
        if finished or elapsed > timeout:
            break
        time.sleep(0.2)
    if not finished:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        record = {"status": "timeout", "reason": f"no result in {timeout:.0f} s"}
    elif os.path.getsize(out):
        with open(out) as stream:
            record = json.load(stream)
    else:
        record = {"status": "crashed", "reason": f"process ended with status {status:#x}"}
    os.unlink(out)
    record["wall_s"] = elapsed
    return record


def survey_pair(row: dict, mode: str, workdir: str, timeout: float) -> dict:
    """The plain arm, then (if it ran) the mended arm, of one class in one mode."""
    import hf_arm

    started = time.perf_counter()
    record = {**row, "mode": mode}
    plain = forked(lambda: hf_arm.arm(row, mode, "plain", workdir), timeout)
    record["plain"] = plain
    if plain["status"] == "ok":
        record["mended"] = forked(lambda: hf_arm.arm(row, mode, "mended", workdir, plain), timeout)
    arms = [record["plain"], record.get("mended", {"status": "ok"})]
    failed = next((a for a in arms if a["status"] != "ok"), None)
    record["status"] = failed["status"] if failed else "ok"
    if failed:
        record["reason"] = failed.get("reason", "")
    record["seconds"] = round(time.perf_counter() - started, 2)
    stored = os.path.join(workdir, f"{row['class']}-{mode}-plain.pt")
    if os.path.exists(stored):
        os.unlink(stored)
    return record


def read_lines(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def append_line(path: str, item: dict) -> None:
    with open(path, "a") as handle:
        handle.write(json.dumps(item) + "\n")


def run_main(args) -> None:
    rows = select(classes_from_child(), args)
    kept = [r for r in read_lines(args.out) if "class" in r and not (args.retry and r["status"] != "ok")]
    done = {(r["class"], r["mode"]) for r in kept}
    pairs = [(row, mode) for row in rows for mode in args.modes.split(",") if (row["class"], mode) not in done]
    workdir = args.out + ".d"
    os.makedirs(workdir, exist_ok=True)
    print(f"{len(rows)} classes, {len(pairs)} (class, mode) pairs to run", file=sys.stderr, flush=True)
    prepare_parent()
    append_line(args.out, run_line(args, len(pairs)))
    unbuilt: dict = {}  # class -> its skipped record: the other mode builds the same model
    for number, (row, mode) in enumerate(pairs, 1):
        if row["class"] in unbuilt:
            record = {**unbuilt[row["class"]], "mode": mode, "seconds": 0.0}
        else:
            record = survey_pair(row, mode, workdir, args.timeout)
        if record["status"] == "skipped":
            unbuilt[row["class"]] = record
        append_line(args.out, record)
        print(f"[{number}/{len(pairs)}] {summary_line(record)}", file=sys.stderr, flush=True)


def run_line(args, pairs: int) -> dict:
    """What one `run` call was, written as it starts (a run may be stopped): its command,
    the pairs it has to run, and the machine. Each record has its own time."""
    import torch

    import graphmend
    from suite import _cpu_name

    env = {"cpu": _cpu_name(), "cpu_count": os.cpu_count(), "load_average": os.getloadavg()[0],
           "torch": torch.__version__, "graphmend": graphmend.__version__}
    return {"run": args.command_line, "pairs": pairs, "timeout_s": args.timeout,
            "date": time.strftime("%Y-%m-%d"), "environment": env}


def summary_line(record: dict) -> str:
    head = f"{record['class']} [{record['mode']}]"
    if record["status"] != "ok":
        return f"{head}: {record['status']}: {record.get('reason', '')[:150]}"
    before, after = (record[arm]["breaks"]["dynamo_breaks"] for arm in ("plain", "mended"))
    return f"{head}: breaks {before} -> {after}, equal {equal_cells(record)} ({record['seconds']:.0f} s)"


def builds_main(args) -> None:
    """Every class built and run eagerly once in eval mode, in this one process (no compiling,
    no second arm): which classes the survey can build at all, in minutes rather than hours.
    A class past `--timeout` seconds is stopped by an alarm and counted as not built."""
    import signal
    import warnings

    import hf_arm

    warnings.filterwarnings("ignore")

    def alarm(*_):
        raise TimeoutError(f"no eager run in {args.timeout:.0f} s")

    signal.signal(signal.SIGALRM, alarm)
    out, rows = {}, select(enumerate_classes(), args)
    if args.retry and os.path.exists(args.out):  # again only the classes the file has not built
        with open(args.out) as handle:
            earlier = json.load(handle)
        out = earlier["classes"]
        rows = [row for row in rows if not out.get(row["class"], {}).get("built")]
        args.command_line = f"{earlier['command']}; {args.command_line}"
    for row in rows:
        signal.alarm(int(args.timeout))
        try:
            variant = hf_arm.build_model(row, "eval")[2]
            out[row["class"]] = {**row, "built": True, "variant": list(variant)}
        except Exception as error:
            out[row["class"]] = {**row, "built": False, "reason": hf_arm.short_error(error)}
        finally:
            signal.alarm(0)
        verdict = "built" if out[row["class"]]["built"] else out[row["class"]]["reason"][:100]
        print(f"[{len(out)}] {row['class']}: {verdict}", file=sys.stderr, flush=True)
        _write_builds(args, out)  # after every class: a crash of the process keeps what ran
    built = sum(r["built"] for r in out.values())
    print(f"{built} of {len(out)} classes built and ran eagerly", file=sys.stderr)


def _write_builds(args, out: dict) -> None:
    with open(args.out, "w") as handle:
        json.dump({"command": args.command_line, "date": time.strftime("%Y-%m-%d"), "classes": out}, handle, indent=1)


# ---------------------------------------------------------------------------------------------
# Reading records.


def ran(record: dict) -> bool:
    """Both arms ran to the end (whatever the model did)."""
    return record["status"] == "ok"


def breaks(record: dict, arm: str) -> int:
    return record[arm]["breaks"]["dynamo_breaks"]


def groups(record: dict, arm: str) -> list[dict]:
    """The arm's breaks grouped by root cause; the plain arm's with GraphMend's tags. A frame
    skipped for a break in a loop ("graph break in loop") takes the family of the break at
    the same line, which is its cause."""
    found = record["mended"]["plain_groups_tagged"] if arm == "plain" else record["mended"]["breaks"]["groups"]
    causes = {g["where"]: g["family"] for g in found if g["reason"] != LOOP_SKIP}
    return [{**g, "family": causes.get(g["where"], g["family"])} if g["reason"] == LOOP_SKIP else g for g in found]


def agreement(record: dict) -> dict:
    """Whether the mended run agrees with the original: eager outputs and gradients exactly;
    compiled ones within tolerance of the original eager ones, or, where the original's own
    compiled run is outside that, of the original compiled ones; events and exceptions the
    same. None: nothing to compare."""
    mended = record["mended"]
    eager, compiled = mended["eager_vs_plain"], mended["compiled_vs_plain"]
    as_compiled = mended.get("compiled_vs_plain_compiled", {})
    pick = lambda result, key: result.get(key, {}).get("equal")  # noqa: E731

    def compiled_equal(key):
        return pick(compiled, key) or pick(as_compiled, key) if pick(compiled, key) is not None else None

    return {
        "outputs": _all(pick(eager, "outputs"), compiled_equal("outputs")),
        "grads": _all(pick(eager, "grads"), compiled_equal("grads")),
        "events": _all(*mended["events_vs_plain"].values()),
        "exceptions": _all(eager["error_same"], compiled["error_same"]),
    }


def _all(*values):
    known = [v for v in values if v is not None]
    return None if not known else all(known)


def equal_cells(record: dict) -> str:
    marks = {True: "=", False: "≠", None: "-"}
    return " ".join(f"{k} {marks[v]}" for k, v in agreement(record).items())


def latest(paths: list[str]) -> tuple[list[dict], list[dict]]:
    """(records with the last line of each (class, mode) winning, run lines) of the files."""
    records, runs = {}, []
    for path in paths:
        for item in read_lines(path):
            if "class" in item:
                records[(item["class"], item["mode"])] = item
            else:
                runs.append(item)
    return list(records.values()), runs


# ---------------------------------------------------------------------------------------------
# Report.


def mode_table(records: list[dict], enumerated: int) -> list[str]:
    lines = [
        "| mode | classes tried | built | both arms ran | break before | fully fixed | breaks before → after | "
        "break more after | outputs equal | gradients equal | prints/logs equal | exceptions equal |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mode in MODES:
        mine = [r for r in records if r["mode"] == mode]
        built = [r for r in mine if r["status"] != "skipped"]
        done = [r for r in mine if ran(r)]
        broken = [r for r in done if breaks(r, "plain") > 0]
        fixed = [r for r in broken if breaks(r, "mended") == 0]
        worse = [r for r in done if breaks(r, "mended") > breaks(r, "plain")]
        total = lambda arm: sum(breaks(r, arm) for r in done)  # noqa: E731
        agreed = [agreement(r) for r in done]
        count = lambda key: _ratio([a[key] for a in agreed])  # noqa: E731
        lines.append(
            f"| {mode} | {len(mine)} of {enumerated} | {len(built)} | {len(done)} | {len(broken)} | {len(fixed)} | "
            f"{total('plain')} → {total('mended')} | {len(worse)} | {count('outputs')} | {count('grads')} | "
            f"{count('events')} | {count('exceptions')} |"
        )
    return lines


def _ratio(values: list) -> str:
    known = [v for v in values if v is not None]
    return f"{sum(known)} of {len(known)}"


def family_table(records: list[dict]) -> list[str]:
    """Logged breaks (graph splits and skipped frames) by Dynamo's reason family, before and
    after, per mode; and the classes with such a break."""
    counts = collections.defaultdict(int)
    classes = collections.defaultdict(set)
    for record in filter(ran, records):
        for arm in ("plain", "mended"):
            for group in groups(record, arm):
                counts[(group["family"], record["mode"], arm)] += group["count"]
                classes[(group["family"], record["mode"], arm)].add(record["class"])
    lines = [
        "| reason family (Dynamo's GB ids) | eval: breaks before → after | classes before → after | "
        "train: breaks before → after | classes before → after |",
        "|---|---|---|---|---|",
    ]
    import hf_arm

    for name in hf_arm.FAMILY_ORDER:
        ids = ", ".join(hf_arm.FAMILIES.get(name, ())) or "any other"
        cells = []
        for mode in MODES:
            cells.append(f"{counts[(name, mode, 'plain')]} → {counts[(name, mode, 'mended')]}")
            cells.append(f"{len(classes[(name, mode, 'plain')])} → {len(classes[(name, mode, 'mended')])}")
        lines.append(f"| {name} ({ids}) | " + " | ".join(cells) + " |")
    return lines


def graphmend_table(records: list[dict]) -> list[str]:
    """Logged breaks by Dynamo's reason family and GraphMend's tag at their line, before and
    after, both modes, with the classes that have them."""
    counts = collections.Counter()
    classes = collections.defaultdict(set)
    for record in filter(ran, records):
        for arm in ("plain", "mended"):
            for group in groups(record, arm):
                key = (group["family"], _tag_text(group.get("graphmend", {})))
                counts[(key, arm)] += group["count"]
                classes[key].add(record["class"])
    keys = sorted({k for k, _ in counts}, key=lambda k: (-counts[(k, "plain")] - counts[(k, "mended")], k))
    lines = [
        "| reason family | GraphMend at the break's line | breaks before | breaks after | classes |",
        "|---|---|---|---|---|",
    ]
    for key in keys:
        names = sorted(classes[key])
        shown = ", ".join(f"`{n}`" for n in names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        lines.append(f"| {key[0]} | {key[1]} | {counts[(key, 'plain')]} | {counts[(key, 'mended')]} | {shown} |")
    return lines


def _tag_text(tag: dict) -> str:
    if tag.get("state") in ("fixed", "declined"):
        reason = f": {tag['reason']}" if tag.get("reason") and tag["state"] == "declined" else ""
        return f"{tag['state']} {tag.get('code', '')}{reason}"
    return "untagged"


def worse_list(records: list[dict]) -> list[str]:
    """Classes that break more after mending, with the breaks the mended run has that the
    original does not."""
    lines = []
    for record in filter(ran, records):
        if breaks(record, "mended") <= breaks(record, "plain"):
            continue
        before = {(g["reason"], g["where"]) for g in groups(record, "plain")}
        new = [g for g in groups(record, "mended") if (g["reason"], g["where"]) not in before]
        what = "; ".join(f"{g['count']}x {g['reason']} at `{g['where']}`" for g in new[:3]) or "more of the same"
        lines.append(
            f"- `{record['class']}` [{record['mode']}]: {breaks(record, 'plain')} → {breaks(record, 'mended')}: {what}"
        )
    return lines


def difference_list(records: list[dict]) -> list[str]:
    lines = []
    for record in filter(ran, records):
        differs = [k for k, v in agreement(record).items() if v is False]
        if differs:
            lines.append(f"- `{record['class']}` [{record['mode']}]: {', '.join(differs)} differ: {_difference(record)}")
    return lines


def _difference(record: dict) -> str:
    mended, parts = record["mended"], []
    for phase in ("eager", "compiled"):
        result = mended[f"{phase}_vs_plain"]
        for key in ("outputs", "grads"):
            if result.get(key, {}).get("equal") is False:
                detail = result[key].get("max_abs_diff", result[key].get("why"))
                parts.append(f"{phase} {key} (max abs diff {detail})")
        if not result["error_same"]:
            parts.append(f"{phase} exception: {record['plain'][phase]['error']} vs {mended[phase]['error']}")
        if not mended["events_vs_plain"][phase]:
            plain_events, mended_events = record["plain"][phase]["events"], mended[phase]["events"]
            extra = [e for e in mended_events if e not in plain_events][:1]
            missing = [e for e in plain_events if e not in mended_events][:1]
            parts.append(f"{phase} events: only mended {extra}, only original {missing}")
    return _shorten("; ".join(parts), 400)


def class_table(records: list[dict]) -> list[str]:
    """One row per class that breaks in either arm or mode."""
    by_class = collections.defaultdict(dict)
    for record in filter(ran, records):
        by_class[record["class"]][record["mode"]] = record
    lines = [
        "| class | modality | eval breaks | train breaks | left after mending (family: count) |",
        "|---|---|---|---|---|",
    ]
    for name, modes in sorted(by_class.items()):
        if not any(breaks(r, arm) for r in modes.values() for arm in ("plain", "mended")):
            continue
        cells = [f"{breaks(modes[m], 'plain')} → {breaks(modes[m], 'mended')}" if m in modes else "-" for m in MODES]
        left = collections.Counter()
        for record in modes.values():
            for group in groups(record, "mended"):
                left[f"{record['mode']} {group['family']}"] += group["count"]
        text = ", ".join(f"{k}: {v}" for k, v in sorted(left.items()))
        modality = next(iter(modes.values()))["modality"]
        lines.append(f"| `{name}` | {modality} | {cells[0]} | {cells[1]} | {text} |")
    return lines


def skipped_lines(records: list[dict]) -> list[str]:
    """Classes not built or not run to the end, grouped by the first words of the reason."""
    reasons = collections.defaultdict(list)
    for record in records:
        if not ran(record) and record["mode"] == "eval":
            reasons[f"{record['status']}: {_shorten(record.get('reason', ''), 90)}"].append(record["class"])
    lines = []
    for reason, names in sorted(reasons.items(), key=lambda item: -len(item[1])):
        shown = ", ".join(f"`{n}`" for n in names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        lines.append(f"- {len(names)}x {reason}: {shown}")
    return lines


def _shorten(text: str, width: int) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def builds_lines(builds: dict) -> list[str]:
    """Classes built and run eagerly by `builds`, by modality, and why the others were not."""
    rows = list(builds["classes"].values())
    built = [r for r in rows if r["built"]]
    by_modality = collections.Counter(r["modality"] for r in rows)
    built_by = collections.Counter(r["modality"] for r in built)
    cells = ", ".join(
        f"{kind} {built_by[kind]} of {count} ({100 * built_by[kind] / count:.0f}%)" for kind, count in by_modality.most_common()
    )
    lines = [
        f"**Built and run eagerly: {len(built)} of {len(rows)} classes ({100 * len(built) / max(1, len(rows)):.1f}%)** "
        f"(`{builds['command']}`, {builds['date']}: each class built tiny and run once in eval mode, "
        f"nothing compiled): {cells}. Not built, by the first words of the error:",
        "",
    ]
    reasons = collections.defaultdict(list)
    for row in rows:
        if not row["built"]:
            reasons[_reason_key(row["reason"])].append(row["class"])
    for reason, names in sorted(reasons.items(), key=lambda item: -len(item[1]))[:12]:
        shown = ", ".join(f"`{n}`" for n in names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        lines.append(f"- {len(names)}x {reason}: {shown}")
    rest = sum(len(v) for v in sorted(reasons.values(), key=len, reverse=True)[12:])
    if rest:
        lines.append(f"- {rest} others, each with a reason of its own")
    return lines + [""]


def _reason_key(reason: str) -> str:
    """An error's first words, enough to group the same failure across classes."""
    text = reason.split(" | ")[-1]
    text = text.split(": ", 1)[1] if text.startswith(("text: ", "vision: ", "audio: ", "embeddings: ")) else text
    return _shorten(text, 80)


def section(records: list[dict], runs: list[dict], enumerated: int, sources: list[str], builds=None) -> str:
    env = runs[-1]["environment"] if runs else {}
    seconds = sorted(r["seconds"] for r in records if r["seconds"])
    median = seconds[len(seconds) // 2] if seconds else 0
    covered = len({r["class"] for r in records})
    commands = "; ".join(f"`{r['run']}` ({r['date']})" for r in runs)
    lines = [
        f"<!-- {SECTION}:begin (bench/models/hf_survey.py report; edits here are overwritten) -->",
        "## Transformers survey: base, causal-LM and conditional-generation classes, eval and train",
        "",
        f"**Coverage: {covered} of the {enumerated} classes enumerated** (every `*Model`, `*ForCausalLM` and "
        "`*ForConditionalGeneration` PreTrainedModel of transformers, not Auto* or abstract bases). "
        "Each built tiny from its config class (zoo.tiny_config_dict: hidden size 64, 2 layers, "
        "vocabulary 256; every dropout probability 0; seed 0; never the hub), inputs made from `forward`'s "
        "signature and the config (token ids with a padded mask, decoder ids, `pixel_values` from "
        "`image_size`/`num_channels`, `input_values`/`input_features`, past values): the richest "
        "variant that runs eagerly. **eval**: `model.eval()`, `torch.no_grad()`; **train**: "
        "`model.train()`, grad on, the sum of the means of the floating outputs backpropagated. "
        "**before**: `torch.compile(model, backend=counter)`; **after**: the same with "
        "`graphmend.install(['transformers'])` before transformers is imported and "
        "`graphmend.runtime.flush()` after the call. Breaks: the sum of Dynamo's "
        "`counters['graph_break']` (skipped frames count); families and GraphMend's tags from "
        "Dynamo's break log (one entry per graph split or skipped frame). Equal: the mended eager "
        "outputs and gradients exactly, the compiled ones within float32 rtol 1e-4 atol 1e-5 of "
        "the original eager ones; prints, logs and warnings, and exceptions, the same in both phases. "
        "Each arm in its own process (forked before transformers is imported).",
        "",
        f"Data: {', '.join(f'`{s}`' for s in sources)}. Commands: {commands or '-'}. "
        f"Machine: {env.get('cpu', '?')}, {env.get('cpu_count', '?')} cores; torch {env.get('torch', '?')}, "
        f"GraphMend {env.get('graphmend', '?')}. Survey time: {sum(seconds) / 60:.0f} min for "
        f"{len(records)} (class, mode) pairs (median {median:.0f} s a pair, both arms).",
        "",
        *(builds_lines(builds) if builds else []),
        "Surveyed (both arms, both modes):",
        "",
        *mode_table(records, enumerated),
        "",
        "Breaks by Dynamo's reason family (logged breaks; a break in a callee splits each enclosing "
        "frame and counts once per split):",
        "",
        *family_table(records),
        "",
        "Breaks by Dynamo's reason family and GraphMend's diagnostic at the break's line (fixed: "
        "GraphMend reports the site rewritten; declined: it tagged the site and says why it left it; "
        "untagged: no GM code at that line). A break left after mending at a site reported fixed is a "
        "rewrite that does not remove its break:",
        "",
        *graphmend_table(records),
        "",
    ]
    worse = worse_list(records)
    lines += ["**Classes that break more after mending**" + (":" if worse else ": none."), "", *worse, ""]
    differs = difference_list(records)
    lines += ["**Mended runs that differ from the original**" + (":" if differs else ": none."), "", *differs, ""]
    lines += ["Classes with breaks:", "", *class_table(records), ""]
    if os.path.exists(FINDINGS):
        with open(FINDINGS) as handle:
            lines += [handle.read().strip(), ""]
    skipped = skipped_lines(records)
    if skipped:
        lines += ["Not built or not run to the end (eval mode; reasons by their first words):", "", *skipped, ""]
    lines.append(f"<!-- {SECTION}:end -->")
    return "\n".join(lines) + "\n"


def report_main(args) -> None:
    import suite_report

    records, runs = latest(args.results)
    enumerated = args.enumerated or len(classes_from_child())
    builds = None
    if args.builds:
        with open(args.builds) as handle:
            builds = json.load(handle)
    text = section(records, runs, enumerated, [os.path.relpath(p, REPO) for p in args.results], builds)
    if args.out:
        suite_report.replace_section(args.out, SECTION, text)
    else:
        print(text)


# ---------------------------------------------------------------------------------------------


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    listing = sub.add_parser("list", help="the classes surveyed, with kind and modality")
    listing.add_argument("--sample", action="store_true", help="only the fixed sample")
    listing.add_argument("--json", action="store_true")
    run = sub.add_parser("run", help="survey classes, one JSON line per (class, mode) appended to --out")
    run.add_argument("--out", required=True, help="JSON lines; pairs already there are skipped")
    add_selection_arguments(run)
    run.add_argument("--modes", default=",".join(MODES))
    run.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="seconds per arm")
    run.add_argument("--retry", action="store_true", help="run again the pairs --out has that did not run (skipped, timed out, crashed): after a fix to the builder; the new line wins")
    builds = sub.add_parser("builds", help="build and run eagerly every class in one process, JSON out")
    builds.add_argument("--out", required=True)
    add_selection_arguments(builds)
    builds.add_argument("--timeout", type=float, default=60, help="seconds per class")
    builds.add_argument("--retry", action="store_true", help="build again the classes --out has not built (after a fix to the builder); the others are kept")
    report = sub.add_parser("report", help="the Markdown section, into --out (default: stdout)")
    report.add_argument("results", nargs="+", help="JSON-lines files of `run`")
    report.add_argument("--out")
    report.add_argument("--enumerated", type=int, help="the number of classes (default: enumerate again)")
    report.add_argument("--builds", help="the JSON of `builds`: how many classes build at all")
    args = parser.parse_args(argv)
    args.command_line = "python bench/models/hf_survey.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.step == "list":
        rows = enumerate_classes()
        rows = sample(rows) if args.sample else rows
        if args.json:
            print(json.dumps(rows))
        else:
            for row in rows:
                print(f"{row['class']:60} {row['kind']:24} {row['modality']}")
            print(f"{len(rows)} classes: {dict(collections.Counter(r['modality'] for r in rows))}", file=sys.stderr)
    elif args.step == "run":
        run_main(args)
    elif args.step == "builds":
        builds_main(args)
    else:
        report_main(args)


if __name__ == "__main__":
    main()
