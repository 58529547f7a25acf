#!/usr/bin/env python3
"""What checked speculation costs, beside the break it removes: the paper's Figure 1 module
(a Linear(64, 64), then a branch on its output's sum, nothing annotated), the original
against the mended one, per call under ``torch.no_grad()`` on this CPU:

* eager: the mended module checks ``runtime.tensors(h)``, computes both branch values and
  ``torch.where``s them, where the original computes one branch;
* Inductor: the original compiles to two graphs around the break (``torch.compile``), the
  mended one to one (``graphmend.compile``).

Calls of the two arms alternate in rounds (--rounds of --number calls each), so a change in
the machine's speed falls on both; the table has the median per-call time of the rounds and
the median of the rounds' ratios, mended / original.

    .venv/bin/python bench/speculation_cost.py [--batches 1,32,1024]
"""

from __future__ import annotations

import argparse
import statistics
import time
import types

import torch
from torch import nn

import graphmend

FIGURE_1 = '''
import torch
from torch import nn


class Figure1(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.lin = nn.Linear(width, width)

    def forward(self, x):
        h = self.lin(x)
        if h.sum() > 0:
            y = h * 2
        else:
            y = h - 1
        return y.relu()
'''


def load(text: str, name: str) -> type:
    module = types.ModuleType(name)
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module.Figure1


def per_call(fn, x, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn(x)
    return (time.perf_counter() - start) / number * 1e6


def compare(original, mended, x, rounds: int, number: int):
    times = {"original": [], "mended": []}
    ratios = []
    for _ in range(rounds):
        a = per_call(original, x, number)
        b = per_call(mended, x, number)
        times["original"].append(a)
        times["mended"].append(b)
        ratios.append(b / a)
    return statistics.median(times["original"]), statistics.median(times["mended"]), statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", default="1,32,1024")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--number", type=int, default=300)
    args = parser.parse_args()
    torch.set_num_threads(1)
    mended_text = graphmend.mend_source(FIGURE_1, filename="figure1.py").source
    assert "__graphmend_rt__.tensors(h)" in mended_text
    print("| batch | arm | original (us/call) | mended (us/call) | mended / original |")
    print("|---|---|---|---|---|")
    for batch in (int(b) for b in args.batches.split(",")):
        torch.manual_seed(0)
        original = load(FIGURE_1, "figure1_original")(64).eval()
        mended = load(mended_text, "figure1_mended")(64).eval()
        mended.load_state_dict(original.state_dict())
        x = torch.randn(batch, 64)
        with torch.no_grad():
            assert torch.equal(original(x), mended(x))
            row = compare(original, mended, x, args.rounds, args.number)
            print(f"| {batch} | eager | {row[0]:.1f} | {row[1]:.1f} | {row[2]:.2f} |")
            torch._dynamo.reset()
            compiled_original = torch.compile(original)
            compiled_mended = graphmend.compile(mended)
            for _ in range(3):  # compile, then warm up
                assert torch.allclose(compiled_original(x), compiled_mended(x))
            row = compare(compiled_original, compiled_mended, x, args.rounds, args.number)
            print(f"| {batch} | Inductor | {row[0]:.1f} | {row[1]:.1f} | {row[2]:.2f} |")


if __name__ == "__main__":
    main()
