#!/usr/bin/env python3
"""The compile boundary's own cost per call: a trivial callee called directly and behind
``graphmend.compile``'s boundary (``boundary.boundary``), keyword arguments as a model gets
them, side by side in one run; the best of --repeats timings of --number calls each.

    .venv/bin/python bench/boundary_cost.py
"""

from __future__ import annotations

import argparse
import timeit

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
    for name, fn in (("direct", callee), ("behind the boundary", bounded)):
        timings = timeit.repeat(lambda: fn(**kwargs), number=args.number, repeat=args.repeats)
        rows.append((name, min(timings) / args.number * 1e6))
    print("| call | us per call |\n|---|---|")
    for name, micros in rows:
        print(f"| {name} | {micros:.3f} |")
    print(f"\nboundary cost: {rows[1][1] - rows[0][1]:.3f} us per call")


if __name__ == "__main__":
    main()
