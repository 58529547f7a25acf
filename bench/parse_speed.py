#!/usr/bin/env python3
"""Parse speed: GraphMend's C++ parser against CPython's, over the standard library.

All sources are read into memory first (the files that ast.parse accepts, as UTF-8), then,
single-threaded, each contender parses the whole set; best and median of --repeats runs:

* graphmend: graphmend._core._parse_only (lex + parse in C++, GIL released, no Python
  objects built; timed in C++ with steady_clock)
* ast.parse: CPython's parser and the conversion to Python ast objects
* compile(PyCF_ONLY_AST): the same without the ast.parse wrapper (optional, --compile)

Prints a markdown table (MB/s, ratio) and the C++ parser's arena size against the source size.
"""

from __future__ import annotations

import argparse
import ast
import gc
import io
import os
import platform
import statistics
import sys
import sysconfig
import time
import tokenize
import warnings
from pathlib import Path

import graphmend
from graphmend import _core


def stdlib_sources(limit: int | None) -> list[tuple[str, bytes, str]]:
    """(path, UTF-8 bytes, text) for each stdlib file that ast.parse accepts."""
    root = Path(sysconfig.get_paths()["stdlib"])
    paths = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in ("site-packages", "dist-packages", "__pycache__"))
        paths.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    sources = []
    for path in paths[:limit] if limit else paths:
        data = path.read_bytes()
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            text = data.decode(encoding)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(text)
        except Exception:
            continue
        sources.append((str(path), text.encode("utf-8"), text))
    return sources


def time_python(parse, texts: list[str]) -> float:
    gc.collect()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            for text in texts:
                parse(text)
            return time.perf_counter() - start
    finally:
        gc.enable()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--limit", type=int, default=None, help="only the first N stdlib files")
    parser.add_argument("--compile", action="store_true", help="also time compile(..., PyCF_ONLY_AST)")
    parser.add_argument("--version", default=None, help="grammar for graphmend, e.g. 3.12")
    args = parser.parse_args()
    version = tuple(map(int, args.version.split("."))) if args.version else sys.version_info[:2]

    sources = stdlib_sources(args.limit)
    blobs = [blob for _, blob, _ in sources]
    texts = [text for _, _, text in sources]
    total_bytes = sum(len(b) for b in blobs)
    mb = total_bytes / 1e6
    print(f"corpus: {len(sources)} stdlib files accepted by ast.parse, {mb:.1f} MB "
          f"(Python {platform.python_version()}, graphmend {graphmend.__version__}, "
          f"grammar {version[0]}.{version[1]}, {platform.machine()})")

    ok_count, _, peak_arena = _core._parse_only(blobs, version)
    if ok_count != len(blobs):
        print(f"note: graphmend rejected {len(blobs) - ok_count} of {len(blobs)} files "
              f"(its timing includes their failed parses)")

    contenders = {
        "graphmend (C++, no Python objects)": lambda: _core._parse_only(blobs, version)[1],
        "ast.parse": lambda: time_python(ast.parse, texts),
    }
    if args.compile:
        contenders["compile(PyCF_ONLY_AST)"] = lambda: time_python(
            lambda t: compile(t, "<bench>", "exec", ast.PyCF_ONLY_AST), texts)

    timings: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(args.repeats):  # interleaved, so drift affects every contender alike
        for name, run in contenders.items():
            timings[name].append(run())

    base = statistics.median(timings["ast.parse"])
    print()
    print("| parser | best s | median s | MB/s (median) | vs ast.parse |")
    print("|---|---:|---:|---:|---:|")
    for name, values in timings.items():
        median = statistics.median(values)
        print(f"| {name} | {min(values):.3f} | {median:.3f} | {mb / median:.1f} | "
              f"{base / median:.2f}x |")
    print()
    # Arena bytes per source byte, file by file (files over 10 kB; small ones are dominated
    # by the arena's first 64 kB block).
    ratios = sorted(_core._parse_only([b], version)[2] / len(b) for b in blobs if len(b) > 10_000)
    largest = max(blobs, key=len)
    print(f"graphmend arena: peak {peak_arena / 1e6:.2f} MB for one file "
          f"(largest source {len(largest) / 1e6:.2f} MB -> arena "
          f"{_core._parse_only([largest], version)[2] / 1e6:.2f} MB); "
          f"arena/source over files > 10 kB: median {statistics.median(ratios):.1f}x, "
          f"max {ratios[-1]:.1f}x; whole corpus {mb:.1f} MB")
    print(f"{len(blobs)} files, {args.repeats} repeats, single thread")
    return 0


if __name__ == "__main__":
    sys.exit(main())
