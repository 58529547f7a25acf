#!/usr/bin/env python3
"""What the dense forms cost beside the break they remove, per call under torch.no_grad()
on this CPU, Inductor both ways (the original with ``torch.compile``: graphs around its
break; the mended one with ``graphmend.compile``, one graph):

* ``masked_assign``: ``out[m] = -y[m] * 2 + 1`` (a selection's data-dependent size) written
  ``masked_assign_(out, m, -y * 2 + 1)``: the value computed on every row;
* ``inplace_update``: ``if s > 0: out.add_(x); out.mul_(2)`` on a fresh tensor, run on copies
  and kept with ``torch.where``;
* ``select``: ``torch.cat([x, x * 2 if x.sum() > 0 else x / 2])``, both sides computed;
* ``captured``: ``n = int((y[:, 0] > 0).sum())`` sizing a slice and dividing a sum: the read
  captured in the graph ([Scalar]'s captured read), nothing computed twice.

Rows of 64 floats, the batch given by --batches; half the rows selected; the condition
holding and failing. Calls of the two
arms alternate in rounds (--rounds of --number calls each); the table has the median
per-call time of the rounds and the median of the rounds' ratios, mended / original.

    .venv/bin/python bench/dense_forms.py [--batches 16,1024,16384] [--forms captured]
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import types

import torch

import graphmend

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from speculation_cost import compare  # noqa: E402  (arms alternating in rounds, medians)

PROGRAMS = '''
import torch


def masked_assign(x: torch.Tensor, y: torch.Tensor):
    out = x * 1.0
    m = y[:, 0] > 0
    out[m] = -y[m] * 2 + 1
    return out


def inplace_update(x: torch.Tensor, y: torch.Tensor):
    out = torch.zeros_like(x)
    if y.sum() > 0:
        out.add_(x)
        out.mul_(2)
    return out


def select(x: torch.Tensor, y: torch.Tensor):
    return torch.cat([x, x * 2 if y.sum() > 0 else x / 2])


def captured(x: torch.Tensor, y: torch.Tensor):
    n = int((y[:, 0] > 0).sum())
    return x[:n].sum(0) / max(n, 1)
'''
FORMS = ("masked_assign", "inplace_update", "select", "captured")
# The forms whose work does not depend on the condition: measured once.
ONE_CONDITION = {"masked_assign": "half the rows", "captured": "half the rows"}
REDUCES = {"captured"}


def load() -> types.ModuleType:
    """The programs as a module of their own (graphmend reads their source from the file)."""
    import importlib.util
    import tempfile

    path = pathlib.Path(tempfile.mkdtemp()) / "dense_programs.py"
    path.write_text(PROGRAMS)
    spec = importlib.util.spec_from_file_location("dense_programs", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["dense_programs"] = module
    spec.loader.exec_module(module)
    return module


def breaks(fn, args) -> int:
    """The breaks graphmend.explain reports for one call (a frame given up on counts)."""
    torch._dynamo.reset()
    return len(graphmend.explain(fn, *args).breaks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", default="16,1024,16384")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--number", type=int, default=200)
    parser.add_argument("--forms", default=",".join(FORMS))
    args = parser.parse_args()
    torch.set_num_threads(1)
    programs = load()
    print("| form | batch | condition | breaks, original / mended | original (us/call) "
          "| mended (us/call) | mended / original |")
    print("|---|---|---|---|---|---|---|")
    for form in args.forms.split(","):
        fn = getattr(programs, form)
        mended_fn = graphmend.mend(fn)
        for batch in (int(b) for b in args.batches.split(",")):
            for sign, condition in ((1.0, "holds"), (-1.0, "fails")):
                if form in ONE_CONDITION and sign < 0:
                    continue  # half the rows selected either way
                torch.manual_seed(0)
                x, y = torch.randn(batch, 64), torch.randn(batch, 64)
                call = (x, sign * (y - y.mean() + 0.01))  # y.sum() > 0 where it holds
                with torch.no_grad():
                    counts = (breaks(fn, call), breaks(mended_fn, call))
                    torch._dynamo.reset()
                    original = torch.compile(fn)
                    mended = graphmend.compile(fn)
                    expected = fn(*call)
                    for arm in (original, mended):  # the first call (evidence), then warm
                        for _ in range(3):
                            got = arm(*call)
                            # Inductor orders a reduction's sums its own way (both arms alike)
                            same = (torch.allclose(got, expected, rtol=1e-5, atol=1e-6)
                                    if form in REDUCES else torch.equal(got, expected))
                            assert same, form
                    row = compare(original, mended, call, args.rounds, args.number)
                shown = ONE_CONDITION.get(form, condition)
                print(f"| {form} | {batch} | {shown} | {counts[0]} / {counts[1]} | {row[0]:.1f} "
                      f"| {row[1]:.1f} | {row[2]:.2f} |")


if __name__ == "__main__":
    main()
