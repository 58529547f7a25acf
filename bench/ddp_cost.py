#!/usr/bin/env python3
"""Graphs and steady step time under DDP on CPU, without and with mending: 2 ranks (gloo,
spawned here), each model trained with SGD by ``torch.compile(DDP(model))`` and by
``graphmend.compile(DDP(model))``, Inductor, ``optimize_ddp`` on (DDPOptimizer splits the
graphs at bucket boundaries; buckets of 512 bytes, as in tests/python/test_distributed.py).

Per model and arm, on rank 0: Dynamo's graphs (``counters["stats"]["unique_graphs"]``), the
graphs Inductor compiled after DDPOptimizer's splits, the breaks Dynamo counted, and the
median time of a training step (forward, backward with its all-reduce, optimizer step) over
--steps steps after --warmup (past Dynamo's recompile limit of 8, so a frame that recompiles
on every call has settled), the arms interleaved over --rounds rounds.

    .venv/bin/python bench/ddp_cost.py [--models loop,xlm,bart] [--out build/ddp_cost.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))

import distributed_runner as runner  # noqa: E402  (the spawn, the models, the backend)

MODELS = {
    "loop": "LoopBranch: a branch on the activations in the layer loop, a print, a log record",
    "xlm": "transformers XLMWithLMHeadModel, 2 layers, emb 32: `.item()` assert before the loop",
    "bart": "transformers BartForConditionalGeneration in float16: a clamp guard in each "
    "encoder layer, inside the layer loop",
}


def _model_and_batches(name: str, rank: int):
    import torch
    from programs_distributed.models import LoopBranch

    torch.manual_seed(0)
    if name == "loop":
        return LoopBranch(width=64, depth=4), [(torch.randn(32, 64) + rank,)], lambda out: out
    model = runner._xlm() if name == "xlm" else runner._bart()
    ids = runner._token_batches(rank)[0]
    return model, [ids], runner._lm_loss


def _call(name: str):
    if name == "loop":
        return lambda run, x: run(x)
    return lambda run, ids: run(ids, labels=ids)


def measure(rank: int, names, warmup: int, steps: int, rounds: int):
    import contextlib
    import io

    import graphmend
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP

    results = {}
    for name in names:
        arms = {}
        for arm in ("original", "mended"):
            runner._fresh()
            model, batches, loss_of = _model_and_batches(name, rank)
            ddp = DDP(model, bucket_cap_mb=runner.BUCKET_BYTES / 2**20)
            counting = runner.Counting("inductor")
            compile_fn = torch.compile if arm == "original" else graphmend.compile
            run = compile_fn(ddp, backend=counting)
            optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
            call = _call(name)

            def step(run=run, optimizer=optimizer, call=call, loss_of=loss_of, batch=batches[0]):
                optimizer.zero_grad()
                loss_of(call(run, *batch)).backward()
                optimizer.step()

            with contextlib.redirect_stdout(io.StringIO()):
                for _ in range(warmup):
                    step()
            arms[arm] = {"step": step, "times": [], **runner._dynamo_counts(),
                         "graphs": len(counting.graphs)}  # fmt: skip
        for _ in range(rounds):  # interleaved: both arms see the same machine load
            for arm in arms.values():
                with contextlib.redirect_stdout(io.StringIO()):
                    for _ in range(steps):
                        start = time.perf_counter()
                        arm["step"]()
                        arm["times"].append(time.perf_counter() - start)
        results[name] = {
            arm: {
                "unique_graphs": a["unique_graphs"],
                "graphs": a["graphs"],
                "graph_breaks": a["graph_breaks"],
                "step_ms": statistics.median(a["times"]) * 1e3,
            }
            for arm, a in arms.items()
        }
    return results


def table(results) -> str:
    lines = [
        "| model | Dynamo graphs original → mended | graphs after DDPOptimizer's splits | "
        "breaks counted | step ms original / mended (ratio) |",
        "|---|---|---|---|---|",
    ]
    for name, arms in results.items():
        o, m = arms["original"], arms["mended"]
        lines.append(
            f"| {name} | {o['unique_graphs']} → {m['unique_graphs']} | {o['graphs']} → "
            f"{m['graphs']} | {o['graph_breaks']} → {m['graph_breaks']} | "
            f"{o['step_ms']:.2f} / {m['step_ms']:.2f} ({m['step_ms'] / o['step_ms']:.2f}) |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="loop,xlm,bart")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = set(names) - set(MODELS)
    if unknown:
        parser.error(f"unknown models {sorted(unknown)}; known: {sorted(MODELS)}")
    settings = {"names": names, "warmup": args.warmup, "steps": args.steps, "rounds": args.rounds}
    ranks = runner.launch([(measure, settings)], Path(tempfile.mkdtemp()), timeout_s=3600)
    result = ranks[0]["measure"]
    if "error" in result:
        sys.exit(result["error"])
    result.pop("seconds", None)
    print(table(result))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"settings": settings, "models": result}, indent=1))


if __name__ == "__main__":
    main()
