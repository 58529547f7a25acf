#!/usr/bin/env python3
"""What ``graphmend.compile(model)`` costs on top of ``torch.compile``: tiny seeded Llama,
BART, T5 and Grounding DINO, side by side in one run.

Every measurement runs in a fresh process; the arms alternate within each repeat and the
median of ``--repeats`` is reported. Per model:

* ``torch.compile`` through the first output, with a counting backend and with Inductor
  (each Inductor run with a fresh ``TORCHINDUCTOR_CACHE_DIR``): the cold starts GraphMend is
  measured against;
* GraphMend's own time inside ``graphmend.compile(model, backend=counting)`` (the call alone:
  ``torch.compile`` itself compiles lazily, at the first call), with an empty cache folder and
  with the one the empty run filled; wall-clock time, and the process's CPU time over the same
  span (steadier on a shared machine);
* ``graphmend.mend(model)``, empty and filled cache;
* the peak memory mending adds: the growth of the process's peak RSS over the call, and
  (in a run of its own, since tracing slows allocations and costs memory itself)
  tracemalloc's peak of Python allocations during ``graphmend.mend`` with an empty cache.

Also ``import graphmend`` in a fresh interpreter (median), and whether it imported torch.

With ``--baseline DIR`` (a GraphMend installed elsewhere, e.g. ``pip install --target DIR``
at an older commit) the GraphMend arms also run against it, alternating, and the table
gets its rows. Transformers is never mended at import here (no hook).

    python bench/dropin_cost.py --repeats 3 [--baseline /tmp/gm-before] [--json out.json]

``--first-call counting|inductor`` measures only the first calls: plain ``torch.compile``,
``graphmend.compile`` with ``evidence=False`` and by default (the first call records Dynamo's
evidence), alternating, each from a cache folder its process filled first; the evidence's
cost is what the compile call, the first and the second call take beyond ``evidence=False``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELS = ("llama", "bart", "t5", "grounding_dino")

# One arm in one process: builds the model, does one thing, prints a JSON line.
ARM = textwrap.dedent(
    """
    import json, resource, sys, time, tracemalloc
    sys.path.insert(0, {models!r})
    import torch
    import zoo

    def build(name):
        if name != "llama":
            return zoo.build(name, seed=0)
        import transformers
        torch.manual_seed(0)
        config = transformers.LlamaConfig(
            vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
        model = transformers.LlamaForCausalLM(config).eval()
        ids = torch.randint(3, 128, (2, 12), generator=torch.Generator().manual_seed(0))
        return model, dict(input_ids=ids, attention_mask=torch.ones_like(ids))

    graphs = []
    def counting(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def peak_rss_mb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    model, kwargs = build({model!r})
    arm = {arm!r}
    out = {{}}
    with torch.no_grad():
        if arm.startswith("first:"):
            # The first calls themselves: plain torch.compile, graphmend.compile with the
            # first call's evidence (the default) and without (evidence=False), each timed
            # through the compile call, the first call and the second.
            _, which, backend_name = arm.split(":")
            backend = counting if backend_name == "counting" else "inductor"
            import graphmend
            if which != "plain":  # the cache filled: mending itself is measured elsewhere
                graphmend.mend(model)
            start = time.perf_counter()
            if which == "plain":
                compiled = torch.compile(model, backend=backend)
            else:
                compiled = graphmend.compile(model, backend=backend, evidence=which == "evidence")
            made = time.perf_counter()
            compiled(**kwargs)
            first = time.perf_counter()
            compiled(**kwargs)
            second = time.perf_counter()
            out = {{"compile": made - start, "first": first - made, "second": second - first,
                    "graphs": len(graphs)}}
            report = graphmend.compile_report(compiled) if which == "evidence" else None
            if report is not None:
                out["recompiled"] = report.recompiled
                out["from_runtime"] = len(report.from_runtime)
                out["first_call_graphs"] = report.first_call_graphs
        elif arm in ("counting", "inductor"):
            start = time.perf_counter()
            compiled = torch.compile(model, backend=counting if arm == "counting" else "inductor")
            compiled(**kwargs)
            out["seconds"] = time.perf_counter() - start
        else:
            import graphmend
            # torch.compile's own set-up (importing Dynamo, wrapping) is what both sides pay:
            # GraphMend's own time is the call less the time spent in it.
            in_torch = [0.0, 0.0]
            torch_compile = torch.compile
            def timed_torch_compile(*args, **kwargs):
                started, cpu_started = time.perf_counter(), time.process_time()
                try:
                    return torch_compile(*args, **kwargs)
                finally:
                    in_torch[0] += time.perf_counter() - started
                    in_torch[1] += time.process_time() - cpu_started
            torch.compile = timed_torch_compile
            rss_before = peak_rss_mb()
            if {traced}:
                tracemalloc.start()
            start, cpu_start = time.perf_counter(), time.process_time()
            if arm == "compile":
                compiled = graphmend.compile(model, backend=counting)
            else:
                compiled = graphmend.mend(model)
            out["seconds"] = time.perf_counter() - start - in_torch[0]
            out["cpu_seconds"] = time.process_time() - cpu_start - in_torch[1]
            out["torch_compile_seconds"] = in_torch[0]
            if {traced}:
                out["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
                tracemalloc.stop()
            else:
                out["rss_added_mb"] = peak_rss_mb() - rss_before
            compiled(**kwargs)  # it runs
    print(json.dumps(out))
    """
)

IMPORT = (
    "import sys, time; t = time.perf_counter(); import graphmend; "
    "print(time.perf_counter() - t, 'torch' in sys.modules)"
)


def run(code: str, env: dict) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=1200
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return done.stdout.strip().splitlines()[-1]


def environment(build: str | None, cache: str, inductor: str) -> dict:
    env = dict(os.environ)
    if build:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [build, env.get("PYTHONPATH")]))
    env["GRAPHMEND_CACHE_DIR"] = cache
    env["GRAPHMEND_AHEAD"] = "0"
    env["TORCHINDUCTOR_CACHE_DIR"] = inductor
    return env


def arm(
    model: str, name: str, build: str | None, cache: str, scratch: str, traced: bool = False
) -> dict:
    """One arm in a fresh process; ``traced``: measure Python allocations with tracemalloc
    (which slows them and costs memory of its own: never in a timed or RSS run)."""
    inductor = tempfile.mkdtemp(dir=scratch)
    try:
        code = ARM.format(models=str(HERE / "models"), model=model, arm=name, traced=traced)
        return json.loads(run(code, environment(build, cache, inductor)))
    finally:
        shutil.rmtree(inductor, ignore_errors=True)


def builds(args) -> dict:
    out = {"this build": args.build}
    if args.baseline:
        out["before"] = args.baseline
    return out


def measure_model(model: str, args, scratch: str) -> dict:
    """{row: [runs]}: the torch arms once per repeat, and per build the GraphMend arms with an
    empty cache, then again on the cache that filled."""
    rows: dict = {}
    for repeat in range(args.repeats):
        for name in ("counting", "inductor"):
            rows.setdefault(f"torch.compile first call ({name})", []).append(
                arm(model, name, None, tempfile.mkdtemp(dir=scratch), scratch)
            )
        for label, build in builds(args).items():
            if label == "before" and repeat >= args.baseline_repeats:
                continue
            for product in ("compile", "mend"):
                cache = tempfile.mkdtemp(dir=scratch)
                for state in ("empty", "filled"):
                    row = f"{label}: graphmend.{product}, {state} cache"
                    rows.setdefault(row, []).append(arm(model, product, build, cache, scratch))
                shutil.rmtree(cache, ignore_errors=True)
            if repeat == 0:  # Python allocations of mending, in a run of their own
                cache = tempfile.mkdtemp(dir=scratch)
                traced = arm(model, "mend", build, cache, scratch, traced=True)
                rows[f"{label}: graphmend.mend, empty cache"][0]["traced_peak_mb"] = traced[
                    "traced_peak_mb"
                ]
                shutil.rmtree(cache, ignore_errors=True)
    return rows


FIRST_ARMS = ("plain", "static", "evidence")


def measure_first_calls(model: str, backend: str, repeats: int, scratch: str) -> dict:
    """{arm: [runs]}: the ``first:`` arms, alternating within each repeat, each on a cache
    folder its own process filled before timing."""
    rows: dict = {}
    for _ in range(repeats):
        for which in FIRST_ARMS:
            cache = tempfile.mkdtemp(dir=scratch)
            rows.setdefault(which, []).append(
                arm(model, f"first:{which}:{backend}", None, cache, scratch)
            )
            shutil.rmtree(cache, ignore_errors=True)
    return rows


def first_call_table(results: dict, backend: str) -> str:
    """The evidence's cost: what graphmend.compile's compile call, first and second call
    take with the evidence beyond what they take without it, against plain torch.compile's
    first call."""
    lines = [
        f"| model ({backend}) | torch.compile first call | graphmend.compile, evidence=False: "
        "first call | default (evidence): first call | second call (evidence=False / default) "
        "| evidence cost | of torch.compile's first call | recompiled |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for model, rows in results.items():
        plain = median(rows["plain"], "first")
        static = [median(rows["static"], f) for f in ("compile", "first", "second")]
        evidence = [median(rows["evidence"], f) for f in ("compile", "first", "second")]
        cost = sum(evidence) - sum(static)
        recompiled = any(r.get("recompiled") for r in rows["evidence"])
        lines.append(
            f"| {model} | {plain:.2f} s | {static[1]:.2f} s | {evidence[1]:.2f} s | "
            f"{static[2] * 1000:.1f} / {evidence[2] * 1000:.1f} ms | {cost * 1000:+.0f} ms | "
            f"{cost / plain:+.1%} | {'yes' if recompiled else 'no'} |"
        )
    return "\n".join(lines)


def median(runs: list, field: str) -> float:
    values = [r[field] for r in runs if field in r]
    return statistics.median(values) if values else float("nan")


def import_time(build: str | None, repeats: int, scratch: str) -> tuple:
    seconds, torch_loaded = [], False
    for _ in range(repeats):
        line = run(IMPORT, environment(build, scratch, scratch)).split()
        seconds.append(float(line[0]))
        torch_loaded = torch_loaded or line[1] == "True"
    return statistics.median(seconds), torch_loaded


def table(results: dict) -> str:
    lines = []
    for model, rows in results["models"].items():
        counting = median(rows["torch.compile first call (counting)"], "seconds")
        inductor = median(rows["torch.compile first call (inductor)"], "seconds")
        lines += [
            f"\n**{model}**: torch.compile first call {counting:.2f} s (counting backend), "
            f"{inductor:.2f} s (Inductor)\n",
            "| | median | CPU | of counting | of Inductor | RSS added | tracemalloc peak |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for row, runs in rows.items():
            if row.startswith("torch.compile"):
                continue
            seconds = median(runs, "seconds")
            lines.append(
                f"| {row} | {seconds * 1000:.1f} ms | {median(runs, 'cpu_seconds') * 1000:.1f} ms | "
                f"{seconds / counting:.1%} | "
                f"{seconds / inductor:.2%} | {median(runs, 'rss_added_mb'):.1f} MB | "
                f"{median(runs, 'traced_peak_mb'):.1f} MB |"
            )
    lines += ["", "| `import graphmend` | median | imports torch |", "|---|---:|---|"]
    for label, (seconds, loaded) in results["import"].items():
        lines.append(f"| {label} | {seconds * 1000:.1f} ms | {'yes' if loaded else 'no'} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--build", default=None, help="GraphMend to measure (default: importable)")
    parser.add_argument("--baseline", default=None, help="another GraphMend build (a folder)")
    parser.add_argument("--baseline-repeats", type=int, default=1,
                        help="repeats of the baseline's arms (its mending takes seconds)")
    parser.add_argument("--json", default=None, help="also write the raw runs here")
    parser.add_argument("--first-call", default=None, choices=("counting", "inductor"),
                        help="only the first calls, with this backend: the cost of the "
                        "runtime evidence graphmend.compile records on the first call")
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="gm-dropin-")
    if args.first_call:
        try:
            results = {
                model: measure_first_calls(model, args.first_call, args.repeats, scratch)
                for model in args.models.split(",")
            }
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1))
        print(first_call_table(results, args.first_call))
        return
    try:
        results = {"models": {}, "import": {}}
        for model in args.models.split(","):
            results["models"][model] = measure_model(model, args, scratch)
            print(f"{model}: done", file=sys.stderr, flush=True)
        for label, build in builds(args).items():
            results["import"][label] = import_time(build, max(5, args.repeats), scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    print(table(results))


if __name__ == "__main__":
    main()
