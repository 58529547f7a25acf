#!/usr/bin/env python3
"""The compile boundary's own cost per call: a trivial callee called directly and behind
``graphmend.compile``'s boundary (``boundary.boundary``), keyword arguments as a model gets
them, side by side in one run; the best of --repeats timings of --number calls each. Also
behind the boundary once a ``rerun_if`` has been traced in the process, when the boundary
keeps each call's random state (``runtime.random_state``) for a rerun.

    .venv/bin/python bench/boundary_cost.py
"""

from __future__ import annotations

import argparse
import timeit

import torch  # noqa: F401 (the random state the boundary keeps is torch's)

from graphmend import runtime
from graphmend.boundary import boundary as _boundary


def callee(*args, **kwargs):
    return args


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--number", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    kwargs = {"input_ids": 1, "attention_mask": 2}
    bounded = _boundary(callee, None)
    rows = []
    arms = (("direct", callee, False), ("behind the boundary", bounded, False),
            ("behind the boundary, rerun_if traced", bounded, True))
    for name, fn, rerun_traced in arms:
        runtime.state.rerun_guards = rerun_traced
        timings = timeit.repeat(lambda: fn(**kwargs), number=args.number, repeat=args.repeats)
        rows.append((name, min(timings) / args.number * 1e6))
    runtime.state.rerun_guards = False
    print("| call | us per call |\n|---|---|")
    for name, micros in rows:
        print(f"| {name} | {micros:.3f} |")
    print(f"\nboundary cost: {rows[1][1] - rows[0][1]:.3f} us per call, "
          f"{rows[2][1] - rows[0][1]:.3f} us once a rerun_if was traced")


if __name__ == "__main__":
    main()
