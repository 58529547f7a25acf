#!/usr/bin/env python3
"""Mend speed: the whole C++ mender against ast.parse alone, over the transformers package.

Every .py file of the installed ``transformers`` that ast.parse accepts is read into memory
first. Then, single-threaded and side by side in one run, each contender goes over all files;
the median of --repeats runs is reported:

* graphmend.mend_source: parse, analysis, tagging, every rewrite, edit application, the
  re-parse of the result and the idempotence check (mending the output again), in C++,
  plus the conversion of the result to Python objects (through ``graphmend._core``);
* ast.parse: CPython's parser alone.

Prints a markdown table (MB/s and the ratio) and what the mender found and fixed.

With ``--baseline DIR`` (a GraphMend installed elsewhere, e.g. ``pip install --target DIR``
at an older commit), each repeat runs the mender of this build and the baseline's in two
fresh processes, alternating, on the same files; the table then has both rows.
"""

from __future__ import annotations

import argparse
import ast
import gc
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "python"))
import corpus  # noqa: E402  (the corpus test's file discovery and decoding)


def sources(package: str, limit: int | None) -> list[tuple[str, str]]:
    files, _ = corpus.corpus_files([package])
    out = []
    for _, path in corpus.sample(files, limit):
        text = corpus.decode_like_cpython(path.read_bytes())
        if text is None:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(text)
        except SyntaxError:
            continue
        out.append((str(path), text))
    return out


def timed(run, items) -> float:
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        for item in items:
            run(item)
        return time.perf_counter() - start
    finally:
        gc.enable()


def mender(version):
    from graphmend import _core

    def mend(item):
        path, text = item
        return _core.mend_source(text, path, version=version)

    return mend


def parse(item):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ast.parse(item[1])


def time_in_child(core: str | None, args) -> float:
    """One timed pass of the mender over the files, in a fresh process importing the
    GraphMend in ``core`` (None: this build)."""
    env = dict(os.environ)
    if core is not None:
        env["PYTHONPATH"] = core + os.pathsep + env.get("PYTHONPATH", "")
    command = [sys.executable, __file__, "--package", args.package, "--time-once"]
    if args.limit is not None:
        command += ["--limit", str(args.limit)]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])["mend"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="transformers")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--baseline", default=None, help="a GraphMend installed in this folder")
    parser.add_argument("--time-once", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    files = sources(args.package, args.limit)
    megabytes = sum(len(text.encode()) for _, text in files) / 1e6
    version = tuple(sys.version_info[:2])
    mend = mender(version)
    if args.time_once:
        print(json.dumps({"mend": timed(mend, files)}))
        return 0

    mend_times, parse_times, baseline_times = [], [], []
    for _ in range(args.repeats):  # interleaved, so all see the same machine state
        if args.baseline:
            mend_times.append(time_in_child(None, args))
            baseline_times.append(time_in_child(args.baseline, args))
        else:
            mend_times.append(timed(mend, files))
        parse_times.append(timed(parse, files))
    mend_s, parse_s = statistics.median(mend_times), statistics.median(parse_times)

    tags, fixed = Counter(), Counter()
    for item in files:
        for d in mend(item)["diagnostics"]:
            tags[d["code"]] += 1
            fixed[d["code"]] += bool(d["fixed"])

    print(f"{len(files)} files of {args.package}, {megabytes:.1f} MB; Python {sys.version.split()[0]}; "
          f"median of {args.repeats}\n")
    print("| contender | median s | MB/s | vs ast.parse |")
    print("|---|---:|---:|---:|")
    print(f"| graphmend.mend_source (whole mend) | {mend_s:.2f} | {megabytes / mend_s:.1f} | "
          f"{parse_s / mend_s:.2f}x |")
    if args.baseline:
        base_s = statistics.median(baseline_times)
        print(f"| baseline {args.baseline} (whole mend) | {base_s:.2f} | {megabytes / base_s:.1f} | "
              f"{parse_s / base_s:.2f}x |")
    print(f"| ast.parse alone | {parse_s:.2f} | {megabytes / parse_s:.1f} | 1.00x |")
    if args.baseline:
        print("\nper repeat, this build / baseline: " +
              ", ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(mend_times, baseline_times)))
    print("\nbreak tags found (fixed/all): " +
          ", ".join(f"{code} {fixed[code]}/{tags[code]}" for code in sorted(tags)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
