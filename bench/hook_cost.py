"""What the import hook costs a process that imports transformers and builds a model, with an
empty and with a filled GraphMend cache; with an empty one, with and without the helper
process that mends ahead (``graphmend.ahead``).
The hook's time is the importing process's own: the helper's runs beside it.

    .venv/bin/python bench/hook_cost.py --model bart --repeats 5
    .venv/bin/python bench/hook_cost.py --baseline /tmp/graphmend-old   # + an earlier build

`--baseline DIR` adds a row for an earlier build of graphmend installed there
(`pip install --no-deps --target DIR <checkout>`), with an empty cache (and its helper, if it
has one), so that a change to the mender or the helper is measured side by side with what it
replaces. Torch is imported before the hook is installed, as programs usually do.

Each measurement is a fresh process (modules are imported once per process); the variants
alternate, and the table shows medians. Garbage collections that run inside the hook are
left out of its times (as in the model suite): where a collection lands is chance. Output:
a Markdown table on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import json, sys, time
started = time.perf_counter()
import graphmend, graphmend.cache as cache_module, graphmend.codegen as codegen_module
import graphmend.hook as hook_module
seconds = {{"mend": 0.0, "compile": 0.0}}
# Garbage collections are left out: one over torch's heap (0.2-0.3 s) lands wherever the
# allocation count crosses the threshold, inside the hook or not, by chance.
collections = hook_module._CollectionTimer().__enter__()  # the hook's own, for the whole run
def timed(name, function):
    def wrapper(*args, **kwargs):
        t, gc_before = time.perf_counter(), collections.seconds
        try:
            return function(*args, **kwargs)
        finally:
            seconds[name] += time.perf_counter() - t - (collections.seconds - gc_before)
    return wrapper
import torch  # first, as programs (and the model suite) do: the hook is installed after it
cache_module.mend_module = timed("mend", cache_module.mend_module)
codegen_module.compile_mended = timed("compile", codegen_module.compile_mended)
hook = graphmend.install(["transformers"], cache_dir={cache!r}, ahead={ahead})
sys.path.insert(0, {models!r})
import zoo
zoo.build({model!r}, seed=0)
process_s = time.perf_counter() - started
hook.uninstall()  # waits for a helper, whose CPU time then counts among the children's
import resource
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({{
    "hook_s": hook.stats.seconds - hook.stats.gc_seconds, "mend_s": seconds["mend"] - seconds["compile"],
    "compile_s": seconds["compile"], "mended": hook.stats.mended,
    "cache_hits": hook.stats.cache_hits, "process_s": process_s,
    "helper_cpu_s": children.ru_utime + children.ru_stime,
}}))
"""

# (name, renumber line numbers (always, now), cache, a helper process mending ahead)
VARIANTS = (
    ("empty cache, mending ahead (the default)", True, "empty", True),
    ("empty cache, no helper", True, "empty", False),
    ("filled cache", True, "filled", True),
)


def measure(model: str, renumber: bool, cache: str, ahead: bool, build: str | None = None) -> dict:
    """One fresh process; `build`: a folder holding another graphmend, imported first."""
    code = CHILD.format(
        renumber=renumber, cache=cache, ahead=ahead, models=os.path.join(HERE, "models"), model=model
    )
    env = dict(os.environ)
    if build:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (build, env.get("PYTHONPATH"))))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="bart", help="a bench/models/zoo.py model")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline", help="a folder with an earlier graphmend build (see above)")
    args = parser.parse_args()
    variants = [(*variant, None) for variant in VARIANTS]
    if args.baseline:
        variants.append((f"empty cache, mending ahead, build in {args.baseline}", True, "empty", True, args.baseline))
    runs = {variant[0]: [] for variant in variants}
    with tempfile.TemporaryDirectory(prefix="graphmend-cost-") as root:
        filled = os.path.join(root, "filled")
        measure(args.model, True, filled, False)  # fills it
        for index in range(args.repeats):
            for position, (name, renumber, cache, ahead, build) in enumerate(variants):
                folder = filled if cache == "filled" else os.path.join(root, f"empty-{index}-{position}")
                runs[name].append(measure(args.model, renumber, folder, ahead, build))
    print(f"Model `{args.model}`, {args.repeats} fresh processes per row, medians (seconds).\n")
    print(
        "| cache and line numbers | hook | mending (C++) | compiling to bytecode "
        "| modules mended / from cache | whole process | helper's CPU time |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, records in runs.items():
        def median(key):
            return statistics.median(r[key] for r in records)

        print(
            f"| {name} | {median('hook_s'):.3f} | {median('mend_s'):.3f} | {median('compile_s'):.3f} "
            f"| {median('mended'):.0f} / {median('cache_hits'):.0f} | {median('process_s'):.2f} "
            f"| {median('helper_cpu_s'):.2f} |"
        )


if __name__ == "__main__":
    main()
