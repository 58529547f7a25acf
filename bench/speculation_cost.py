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

``--peer`` measures instead the diffusers scheduler steps of the peer corpus whose breaks
runtime-aware ``graphmend.compile`` removes by speculation: ``euler_churn_chained`` (tail
duplication: the rest of the step computed for both values of a Python number) and
``ddim_prev_alpha`` (a masked read of the schedule by the timestep, with its range assert),
each with its sample tensors of shape (4, n, n), compiled with Inductor both ways: the
original with ``torch.compile`` (graphs around the breaks), the mended one with
``graphmend.compile(model, example_inputs=...)`` (one graph).

    .venv/bin/python bench/speculation_cost.py [--batches 1,32,1024]
    .venv/bin/python bench/speculation_cost.py --peer [--sizes 8,64,256,1024]
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import statistics
import time
import types

import torch

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
    args = x if isinstance(x, tuple) else (x,)
    start = time.perf_counter()
    for _ in range(number):
        fn(*args)
    return (time.perf_counter() - start) / number * 1e6


PEER = pathlib.Path(__file__).resolve().parents[1] / "tests" / "peer" / "diffusers"
PEER_PROGRAMS = ("euler_churn_chained", "ddim_prev_alpha")


def peer_program(name: str):
    spec = importlib.util.spec_from_file_location(f"peer_{name}", PEER / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def peer_rows(sizes, rounds: int, number: int) -> None:
    """Inductor both ways on each peer scheduler step, its sample tensors (4, n, n)."""
    import torch._dynamo

    from torch._dynamo.utils import counters

    print("| program | n | original (us/call) | mended (us/call) | mended / original | breaks left "
          "| graphs Inductor failed on, original / mended |")
    print("|---|---|---|---|---|---|---|")
    for name in PEER_PROGRAMS:
        program = peer_program(name)
        for n in sizes:
            torch.manual_seed(0)
            args = tuple(torch.randn(4, n, n) if isinstance(a, torch.Tensor) and a.dim() == 3 else a
                         for a in program.INPUTS[0])
            with torch.no_grad():
                torch._dynamo.reset()
                # a graph Inductor cannot compile runs eagerly (Dynamo warns and goes on)
                failed = []
                for arm in ("original", "mended"):
                    before = counters["aot_autograd"]["not_ok"]
                    if arm == "original":
                        original = torch.compile(program.ENTRY())
                        first = original(*args)
                    else:
                        mended = graphmend.compile(program.ENTRY(), example_inputs=args)
                        left = len(graphmend.compile_report(mended).breaks_after)
                        second = mended(*args)
                    failed.append(counters["aot_autograd"]["not_ok"] - before)
                for a, b in zip(torch.utils._pytree.tree_leaves(first),
                                torch.utils._pytree.tree_leaves(second)):
                    assert torch.allclose(a, b, rtol=1e-4, atol=1e-5)
                for _ in range(2):  # warm up
                    original(*args), mended(*args)
                row = compare(original, mended, args, rounds, number)
            print(f"| {name} | {n} | {row[0]:.1f} | {row[1]:.1f} | {row[2]:.2f} | {left} "
                  f"| {failed[0]} / {failed[1]} |")


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
    parser.add_argument("--peer", action="store_true", help="the peer scheduler steps instead")
    parser.add_argument("--sizes", default="8,64,256,1024", help="n of the (4, n, n) samples")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.peer:
        peer_rows([int(n) for n in args.sizes.split(",")], args.rounds, args.number)
        return
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
