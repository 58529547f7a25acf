"""The package's type check against its recorded baseline, which only shrinks.

``python tools/mypy_baseline.py`` runs mypy (configured in pyproject.toml) and compares its
errors with tools/mypy-baseline.txt, one error a line, as ``file: message  [code]`` without
the line number (an edit above an old error does not make it new). It fails when an error
is not in the baseline (fix it), and when a baseline error is gone (run it again with
``--update`` to record the smaller baseline, so the fix stays fixed). ``--update`` refuses
to record a new error (it records them all only when there is no baseline yet).
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
from pathlib import Path
from typing import Counter, List

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "tools" / "mypy-baseline.txt"
HEADER = (
    "# mypy's errors in python/graphmend that are known and not fixed yet (tools/mypy_baseline.py).\n"
    "# Fix one, then run `make lint-baseline` to drop it; never add one.\n"
)
ERROR = re.compile(r"^(?P<file>[^:]+):\d+(?::\d+)?: error: (?P<rest>.*)$")


def current_errors() -> Counter[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if proc.returncode not in (0, 1):  # 2: mypy itself failed (a bad config, a crash)
        sys.exit(proc.stdout + proc.stderr)
    found: Counter[str] = collections.Counter()
    for line in proc.stdout.splitlines():
        match = ERROR.match(line)
        if match:
            found[f"{match['file']}: {match['rest']}"] += 1
    return found


def recorded_errors() -> Counter[str]:
    if not BASELINE.exists():
        return collections.Counter()
    lines = BASELINE.read_text().splitlines()
    return collections.Counter(line for line in lines if line and not line.startswith("#"))


def listing(errors: Counter[str]) -> List[str]:
    return sorted(errors.elements())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="record the smaller baseline")
    args = parser.parse_args()
    found, recorded = current_errors(), recorded_errors()
    new, gone = found - recorded, recorded - found
    first = args.update and not BASELINE.exists()  # --update records the first baseline whole
    if new and not first:
        for line in listing(new):
            print(f"new: {line}")
        print(f"mypy: {sum(new.values())} new error(s) beyond tools/mypy-baseline.txt; fix them")
        return 1
    if args.update:
        BASELINE.write_text(HEADER + "".join(f"{line}\n" for line in listing(found)))
        print(f"mypy: {sum(found.values())} error(s) recorded ({sum(gone.values())} fewer)")
        return 0
    if gone:
        for line in listing(gone):
            print(f"fixed: {line}")
        print(f"mypy: {sum(gone.values())} error(s) fixed; run `make lint-baseline` to record it")
        return 1
    print(f"mypy: {sum(found.values())} error(s), as recorded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
