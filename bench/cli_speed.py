"""Wall time of ``graphmend check`` over an installed package (default: transformers) with 1
and 2 jobs, against ``ast.parse`` of the same files in one process and, when installed,
``ruff check`` of the same tree. Each is a fresh process (start-up included), best of
``--repeat``. Prints a Markdown table for docs/BENCHMARKS.md.

    python bench/cli_speed.py [--package transformers] [--repeat 3] [--ruff PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import time

AST_PARSE = """\
import ast, sys
for path in sys.argv[1:]:
    with open(path, "rb") as handle:
        ast.parse(handle.read(), path)
"""


def best_of(command, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="transformers")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ruff", default=shutil.which("ruff"), help="the ruff executable (default: on PATH)")
    options = parser.parse_args()
    folder = importlib.util.find_spec(options.package).submodule_search_locations[0]
    files = sorted(
        os.path.join(root, name)
        for root, dirs, names in os.walk(folder)
        if "__pycache__" not in root
        for name in names
        if name.endswith(".py")
    )
    size = sum(os.path.getsize(path) for path in files)
    check = [sys.executable, "-m", "graphmend", "check", folder, "--isolated", "--exit-zero", "-q",
             "--output-format", "json", "--output-file", os.devnull]
    rows = [
        ("graphmend check --jobs 1", best_of(check + ["--jobs", "1"], options.repeat)),
        ("graphmend check --jobs 2", best_of(check + ["--jobs", "2"], options.repeat)),
        ("ast.parse, one process", best_of([sys.executable, "-c", AST_PARSE, *files], options.repeat)),
    ]
    if options.ruff:
        version = subprocess.run([options.ruff, "--version"], capture_output=True, text=True).stdout.strip()
        ruff = [options.ruff, "check", "--no-cache", "--isolated", "--exit-zero", "-q", folder]
        rows.append((f"{version} check (default rules)", best_of(ruff, options.repeat)))
    print(f"{options.package}: {len(files)} files, {size / 1e6:.1f} MB; {os.cpu_count()} CPUs; best of {options.repeat}")
    print()
    print("| command | wall time (s) |")
    print("| --- | --- |")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
