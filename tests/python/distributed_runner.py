"""Runs scenarios on 2 ranks under torch.distributed (gloo on CPU), as a user's training
script would: one spawn per test module, one process group, several scenarios inside it.

``launch(names, out_dir)`` spawns the ranks (``torch.multiprocessing``, a free port on
127.0.0.1), joins them within a deadline (a hang fails, it never blocks the suite) and
returns each rank's results: ``{scenario: {...}}``, read back from ``rank<N>.pt``. A name
may also be ``(function, kwargs)``: a scenario of another module (bench/ddp_cost.py).
A scenario is a function of this module's ``SCENARIOS`` table, called on every rank with
the rank; what it returns (plain values and tensors) is saved. An exception in a scenario
is recorded as its result (``{"error": ...}``) and the rank goes on with the next one.

Tiny buckets: DDP's first bucket (``dist._DEFAULT_FIRST_BUCKET_BYTES``, 1 MiB) and
``bucket_cap_mb`` are set to 512 bytes, so that DDPOptimizer splits these small models
at bucket boundaries as it splits a real model.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import logging
import os
import socket
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, List

import torch

WORLD = 2
BUCKET_BYTES = 512
TRAP_TIMEOUT_S = 2.0
STEPS = 2


# --------------------------------------------------------------------------------------------
# The parent: spawn, join within a deadline, read the results.


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def launch(names: List[Any], out_dir: Path, timeout_s: float = 240.0) -> List[Dict[str, Any]]:
    import torch.multiprocessing as mp

    out_dir.mkdir(parents=True, exist_ok=True)
    context = mp.start_processes(
        _rank_main,
        args=(_free_port(), str(out_dir), list(names)),
        nprocs=WORLD,
        join=False,
        start_method="spawn",
    )
    deadline = time.monotonic() + timeout_s
    try:
        while not context.join(timeout=1.0):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the {WORLD} ranks did not end within {timeout_s:.0f} s")
    finally:
        for process in context.processes:
            if process.is_alive():
                process.kill()
    return [torch.load(out_dir / f"rank{r}.pt", weights_only=False) for r in range(WORLD)]


def _rank_main(rank: int, port: int, out_dir: str, names: List[Any]) -> None:
    import torch.distributed as dist

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    torch.set_num_threads(1)
    dist.init_process_group(
        "gloo", rank=rank, world_size=WORLD, timeout=datetime.timedelta(seconds=120)
    )
    dist._DEFAULT_FIRST_BUCKET_BYTES = BUCKET_BYTES
    results: Dict[str, Any] = {}
    for entry in names:
        # A name of SCENARIOS, or (a function of a module the ranks can import, its kwargs).
        name, scenario, kwargs = (
            (entry, SCENARIOS[entry], {}) if isinstance(entry, str) else (entry[0].__name__, *entry)
        )
        start = time.monotonic()
        try:
            results[name] = scenario(rank, **kwargs)
        except Exception as exc:  # recorded: the test names the scenario that failed
            results[name] = {"error": "".join(traceback.format_exception(exc))[-4000:]}
        results[name]["seconds"] = time.monotonic() - start
        dist.barrier()
    torch.save(results, Path(out_dir) / f"rank{rank}.pt")
    dist.destroy_process_group()


# --------------------------------------------------------------------------------------------
# What one arm of a scenario observes.


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: List[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(f"{record.levelname}:{record.name}:{record.getMessage()}")


class Counting:
    """A backend that counts the FX graphs handed to it (after DDPOptimizer's splits) and
    runs them as they are; with ``inner`` (a backend name), compiles them with it."""

    def __init__(self, inner: Any = None) -> None:
        self.graphs: List[Any] = []
        self.inner = inner

    def __call__(self, gm: Any, example_inputs: Any) -> Any:
        self.graphs.append(gm)
        if self.inner is None:
            return gm.forward
        from torch._dynamo.backends.registry import lookup_backend

        return lookup_backend(self.inner)(gm, example_inputs)


def _sync_ops(graphs: List[Any]) -> List[str]:
    """The calls in Dynamo's graphs that read a tensor on the host (a sync)."""
    names = {"item", "tolist", "_local_scalar_dense", "__bool__", "nonzero"}
    found = []
    for gm in graphs:
        for node in gm.graph.nodes:
            target = getattr(node.target, "__name__", str(node.target))
            if node.op in ("call_method", "call_function") and target in names:
                found.append(target)
    return found


def train(
    call: Callable[..., Any], params: List[torch.nn.Parameter], batches: List[tuple]
) -> Dict[str, Any]:
    """``STEPS`` SGD steps of ``call`` (returning the loss) with stdout and log records
    captured: the losses, each step's gradients and the final parameters."""
    from programs_distributed.models import logger

    optimizer = torch.optim.SGD(params, lr=0.1)
    out, handler = io.StringIO(), _Capture()
    logger.addHandler(handler)
    logger.propagate = False
    losses, grads = [], []
    try:
        with contextlib.redirect_stdout(out):
            for batch in batches:
                optimizer.zero_grad()
                loss = call(*batch)
                loss.backward()
                losses.append(loss.detach().clone())
                grads.append([_local(p.grad).clone() for p in params])
                optimizer.step()
    finally:
        logger.removeHandler(handler)
    return {
        "losses": losses,
        "grads": grads,
        "params": [_local(p.detach()).clone() for p in params],
        "stdout": out.getvalue(),
        "logs": handler.records,
    }


def _local(t: torch.Tensor) -> torch.Tensor:
    """A DTensor's full value (FSDP2 shards), a plain tensor as it is."""
    full = getattr(t, "full_tensor", None)
    return full() if full is not None else t


def _dynamo_counts() -> Dict[str, int]:
    from torch._dynamo.utils import counters

    return {
        "unique_graphs": counters["stats"]["unique_graphs"],
        "graph_breaks": sum(counters["graph_break"].values()),
    }


def _fresh() -> None:
    import torch._dynamo
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()


# --------------------------------------------------------------------------------------------
# DDP.


def _batches(rank: int, width: int = 8) -> List[tuple]:
    generator = torch.Generator().manual_seed(100 + rank)  # each rank its own data
    return [(torch.randn(4, width, generator=generator) + rank,) for _ in range(STEPS)]


def _ddp_arms(
    build: Callable[[], torch.nn.Module],
    batches: List[tuple],
    backend: Any = None,
    arms: tuple = ("eager", "compiled", "mended"),
    loss_of: Callable[[Any], Any] = lambda out: out,
    call: Callable[..., Any] = lambda model, *args: model(*args),
) -> Dict[str, Any]:
    """The same model (seeded weights) under DDP: eagerly, ``torch.compile``d, and
    ``graphmend.compile``d, each with its own counting backend (``backend``: the backend it
    hands the graphs to)."""
    import graphmend
    from torch.nn.parallel import DistributedDataParallel as DDP

    result: Dict[str, Any] = {}
    for arm in arms:
        _fresh()
        torch.manual_seed(0)
        model = build()
        ddp = DDP(model, bucket_cap_mb=BUCKET_BYTES / 2**20)
        counting = Counting(backend)
        if arm == "eager":
            run = ddp
        elif arm == "compiled":
            run = torch.compile(ddp, backend=counting)
        else:
            run = graphmend.compile(ddp, backend=counting)
        seen = train(lambda *a: loss_of(call(run, *a)), list(model.parameters()), batches)
        seen.update(_dynamo_counts())
        seen["graphs"] = len(counting.graphs)
        seen["sync_ops"] = _sync_ops(counting.graphs)
        result[arm] = seen
    return result


def ddp_loop(rank: int) -> Dict[str, Any]:
    from programs_distributed.models import LoopBranch

    return _ddp_arms(LoopBranch, _batches(rank))


def ddp_loop_unsplit(rank: int) -> Dict[str, Any]:
    """``optimize_ddp`` off: Dynamo compiles whole frames and DDP's hooks reduce the
    gradients outside them."""
    import torch._dynamo
    from programs_distributed.models import LoopBranch

    with torch._dynamo.config.patch(optimize_ddp=False):  # unmended graphs: ``ddp_loop``
        return _ddp_arms(LoopBranch, _batches(rank), arms=("eager", "mended"))


def ddp_loop_inductor(rank: int) -> Dict[str, Any]:
    """Inductor, the default backend (the unmended graphs are counted in ``ddp_loop``)."""
    from programs_distributed.models import LoopBranch

    return _ddp_arms(LoopBranch, _batches(rank), backend="inductor", arms=("eager", "mended"))


def _case_arms(case: str, rank: int) -> Dict[str, Any]:
    import case_files

    module = case_files.load(case)
    inputs = module.INPUTS[rank % len(module.INPUTS)]  # each rank its own branch
    result = _ddp_arms(
        lambda: case_files.build(module),
        [inputs] * STEPS,
        arms=("eager", "mended"),  # unmended: the case's EXPECTED_GRAPHS
        loss_of=lambda out: out.sum(),
    )
    result["expected_graphs"] = module.EXPECTED_GRAPHS
    return result


def ddp_case_cond(rank: int) -> Dict[str, Any]:
    return _case_arms("cond/training_nonfinite_clamp", rank)


def ddp_case_where(rank: int) -> Dict[str, Any]:
    return _case_arms("where/requires_grad", rank)


def ddp_no_sync(rank: int) -> Dict[str, Any]:
    """Gradient accumulation: a backward inside ``no_sync()`` reduces nothing, each rank
    keeps its own gradients. Mended before wrapping, ``graphmend.compile(ddp)`` compiles the
    user's DDP object itself (its ``no_sync`` reaches the compiled calls); compiled from
    ``DDP(model)``, the compiled object's ``no_sync``."""
    import graphmend
    from programs_distributed.models import LoopBranch
    from torch.nn.parallel import DistributedDataParallel as DDP

    (x,) = _batches(rank)[0]
    result: Dict[str, Any] = {}
    for arm in ("eager", "mended_then_wrapped", "wrapped_then_compiled"):
        _fresh()
        torch.manual_seed(0)
        model = LoopBranch()
        counting = Counting()
        if arm == "eager":
            ddp = DDP(model, bucket_cap_mb=BUCKET_BYTES / 2**20)
            run, syncs = ddp, ddp
        elif arm == "mended_then_wrapped":
            ddp = DDP(graphmend.mend(model), bucket_cap_mb=BUCKET_BYTES / 2**20)
            run = graphmend.compile(ddp, backend=counting)
            syncs = ddp
            result["compiled_the_users_ddp"] = run._orig_mod is ddp
        else:
            run = graphmend.compile(
                DDP(model, bucket_cap_mb=BUCKET_BYTES / 2**20), backend=counting
            )
            syncs = run
        with contextlib.redirect_stdout(io.StringIO()), syncs.no_sync():
            run(x).backward()
        result[arm] = {
            "grads": [p.grad.clone() for p in model.parameters()],
            "unique_graphs": _dynamo_counts()["unique_graphs"],
        }
    return result


# --------------------------------------------------------------------------------------------
# A validation guard failing on one rank.


def ddp_trap(rank: int) -> Dict[str, Any]:
    """Rank 1's batch holds an inf: its guard raises. Each arm runs in a process group of
    its own with a short timeout, since the other rank is left waiting in the gradient
    all-reduce of the step rank 1 never finished."""
    import graphmend
    import torch.distributed as dist
    from programs_distributed.models import Guarded
    from torch.nn.parallel import DistributedDataParallel as DDP

    x = torch.randn(4, 8)
    if rank == 1:
        x[0, 0] = float("inf")
    result: Dict[str, Any] = {}
    for arm in ("eager", "mended"):
        _fresh()
        group = dist.new_group(backend="gloo", timeout=datetime.timedelta(seconds=TRAP_TIMEOUT_S))
        torch.manual_seed(0)
        ddp = DDP(Guarded(), process_group=group)
        counting = Counting()
        call = ddp if arm == "eager" else graphmend.compile(ddp, backend=counting)
        start = time.monotonic()
        try:
            call(x).backward()
            ended = {"raised": None}
        except Exception as exc:
            ended = {"raised": type(exc).__name__, "message": str(exc)[:300]}
        ended["seconds"] = time.monotonic() - start
        ended["graphs"] = len(counting.graphs)
        ended["sync_ops"] = _sync_ops(counting.graphs)
        result[arm] = ended
        dist.barrier()  # both ranks done with this arm's group
        dist.destroy_process_group(group)
    return result


# --------------------------------------------------------------------------------------------
# No rewrite depends on the rank.


def mended_source(rank: int) -> Dict[str, Any]:
    """The mended text of the models' file on this rank, and the names its code loads."""
    import graphmend
    from programs_distributed import models

    text = Path(models.__file__).read_text()
    mended = graphmend.mend_source(text, filename=models.__file__).source
    names: set = set()
    todo = [compile(mended, models.__file__, "exec")]
    while todo:
        code = todo.pop()
        names.update(code.co_names)
        todo.extend(c for c in code.co_consts if isinstance(c, type(code)))
    return {"text": mended, "changed": mended != text, "names": sorted(names)}


# --------------------------------------------------------------------------------------------
# FSDP2.


def fsdp_blocks(rank: int) -> Dict[str, Any]:
    """FSDP2 (``fully_shard`` per block and at the root), each block compiled by itself,
    as FSDP2's recipe does; mended with ``graphmend.mend`` before sharding, compiled with
    ``graphmend.compile`` per block."""
    import graphmend
    from programs_distributed.models import Stack
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    mesh = init_device_mesh("cpu", (WORLD,))
    result: Dict[str, Any] = {}
    for arm in ("eager", "compiled", "mended"):
        _fresh()
        torch.manual_seed(0)
        model = Stack()
        if arm == "mended":
            model = graphmend.mend(model)
        for layer in model.layers:
            fully_shard(layer, mesh=mesh)
        fully_shard(model, mesh=mesh)
        counting = Counting()
        for i, layer in enumerate(model.layers):
            if arm == "compiled":
                model.layers[i] = torch.compile(layer, backend=counting)
            elif arm == "mended":
                model.layers[i] = graphmend.compile(layer, backend=counting)
        seen = train(model, list(model.parameters()), _batches(rank))
        seen.update(_dynamo_counts())
        seen["graphs"] = len(counting.graphs)
        result[arm] = seen
    return result


def fsdp_root(rank: int) -> Dict[str, Any]:
    """FSDP2 with the root compiled whole: the hooks FSDP2 runs around each block are
    excluded from tracing, so Dynamo breaks at every block (and, the calls being in a loop,
    skips the root's frame) whether mended or not; the report says whose breaks they are."""
    import graphmend
    from programs_distributed.models import Stack
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    mesh = init_device_mesh("cpu", (WORLD,))
    result: Dict[str, Any] = {}
    for arm in ("eager", "mended"):
        _fresh()
        torch.manual_seed(0)
        model = Stack()
        if arm == "mended":
            model = graphmend.mend(model)
        for layer in model.layers:
            fully_shard(layer, mesh=mesh)
        fully_shard(model, mesh=mesh)
        counting = Counting()
        call = model if arm == "eager" else graphmend.compile(model, backend=counting)
        seen = train(call, list(model.parameters()), _batches(rank))
        seen.update(_dynamo_counts())
        seen["graphs"] = len(counting.graphs)
        if arm == "mended":
            report = graphmend.compile_report(call)
            seen["report"] = str(report)
            seen["breaks"] = [
                (b.filename, b.line, b.reason, b.framework) for b in report.breaks_before
            ]
        result[arm] = seen
    return result


# --------------------------------------------------------------------------------------------
# transformers models, built from their config classes at tiny sizes (seeded, no download).


def _xlm() -> torch.nn.Module:
    """XLM: its forward checks ``assert lengths.max().item() <= slen`` (a Python scalar: a
    break before the layer loop)."""
    import transformers

    config = transformers.XLMConfig(
        vocab_size=64, emb_dim=32, n_layers=2, n_heads=2, max_position_embeddings=32,
        dropout=0.0, attention_dropout=0.0, pad_index=1,
    )  # fmt: skip
    return transformers.XLMWithLMHeadModel(config)


def _bart() -> torch.nn.Module:
    """BART in float16: each encoder layer clamps non-finite activations behind a branch
    on a tensor, inside the encoder's ``for encoder_layer in self.layers:`` loop."""
    import transformers

    config = transformers.BartConfig(
        vocab_size=64, d_model=16, encoder_layers=2, decoder_layers=1,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
        decoder_ffn_dim=32, max_position_embeddings=32, dropout=0.0, attention_dropout=0.0,
        activation_dropout=0.0, pad_token_id=1, bos_token_id=0, eos_token_id=2,
        decoder_start_token_id=2,
    )  # fmt: skip
    return transformers.BartForConditionalGeneration(config).to(torch.float16)


def _token_batches(rank: int) -> List[tuple]:
    generator = torch.Generator().manual_seed(200 + rank)
    return [(torch.randint(3, 64, (2, 10), generator=generator),) for _ in range(STEPS)]


def _lm_loss(out: Any) -> Any:
    return out.loss


def ddp_xlm(rank: int) -> Dict[str, Any]:
    return _ddp_arms(
        _xlm, _token_batches(rank), loss_of=_lm_loss, call=lambda m, ids: m(ids, labels=ids)
    )


def ddp_bart(rank: int) -> Dict[str, Any]:
    return _ddp_arms(
        _bart, _token_batches(rank), loss_of=_lm_loss, call=lambda m, ids: m(ids, labels=ids)
    )


SCENARIOS: Dict[str, Callable[[int], Dict[str, Any]]] = {
    f.__name__: f
    for f in (
        ddp_loop,
        ddp_loop_unsplit,
        ddp_loop_inductor,
        ddp_case_cond,
        ddp_case_where,
        ddp_no_sync,
        ddp_trap,
        ddp_xlm,
        ddp_bart,
        mended_source,
        fsdp_blocks,
        fsdp_root,
    )
}


def _brief(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _brief(v) for k, v in value.items() if k not in ("grads", "params", "text")}
    return value


if __name__ == "__main__":  # python tests/python/distributed_runner.py SCENARIO... (a look)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import tempfile

    names = sys.argv[1:] or list(SCENARIOS)
    for rank, res in enumerate(launch(names, Path(tempfile.mkdtemp()))):
        for name, value in res.items():
            print(f"--- rank {rank} {name}")
            print(value if "error" in value else {k: _brief(v) for k, v in value.items()})
