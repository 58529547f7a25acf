#!/usr/bin/env python3
"""Copies a few hundred small .py files of the running Python's stdlib (and, with --extra, every
.py file under the given folders, e.g. the example models) into a seed folder for the fuzzers.
The seeds are made at run time, never committed."""

from __future__ import annotations

import argparse
import os
import shutil
import sysconfig
from pathlib import Path


def small_stdlib_files(max_bytes: int) -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in ("site-packages", "dist-packages", "__pycache__"))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name.endswith(".py") and 64 <= path.stat().st_size <= max_bytes:
                found.append(path)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--max-bytes", type=int, default=4096)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--extra", type=Path, action="append", default=[],
                        help="also every .py file under this folder (repeatable)")
    args = parser.parse_args()
    files = small_stdlib_files(args.max_bytes)
    step = max(1, len(files) // max(1, args.count))
    chosen = files[::step][: args.count]
    for folder in (f for f in args.extra if f.is_dir()):
        chosen += sorted(p for p in folder.rglob("*.py") if p.stat().st_size <= 4 * args.max_bytes)
    args.output.mkdir(parents=True, exist_ok=True)
    for index, path in enumerate(chosen):
        shutil.copyfile(path, args.output / f"seed_{index:04d}_{path.name}")
    print(f"{len(chosen)} seeds from {len(files)} small stdlib files -> {args.output}")


if __name__ == "__main__":
    main()
