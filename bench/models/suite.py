"""The model suite: each zoo model compiled as it is ("original") and with transformers
mended at import by GraphMend ("mended"), with identical weights and inputs.

    python bench/models/suite.py run --models bart,biogpt --repeats 5 --out r.json
    python bench/models/suite.py report r-5.23.0.json r-4.52.4.json --out docs/RESULTS.md
    python bench/models/suite.py arm --model bart --arm mended --out DIR   # one arm, one process

`run` starts one fresh process per model and arm (so every arm imports transformers anew),
each with its own empty `TORCHINDUCTOR_CACHE_DIR`: original, mended with an empty GraphMend
cache (cold), mended again with the cache the cold run filled (warm). It then compares the
outputs and weights the arms saved, and measures the steady state in `--steady-rounds`
paired rounds: an original and a mended process, each from its arm's own Inductor cache,
measure in turns on one CPU, so both see the machine at the same speed (`steady_rounds`).
`steady RESULTS.json` runs those rounds alone for an earlier result.

Where the mended arm still breaks, `run` adds the runtime arm: runtime-aware
`graphmend.compile(model, example_kwargs=inputs)` over the mended transformers, which may
enable Dynamo options for the breaks left; its breaks are counted under those options, its
outputs compared, and, when it enabled any, paired rounds measure it against the mended arm.
`runtime RESULTS.json` runs that arm alone for an earlier result.

`arm` measures: the cold start (process start to the first compiled output), steady-state
latency and throughput, GraphMend's own time, graph breaks (`torch._dynamo.explain` and a
counting backend) and the eager and compiled outputs.
"""

import time

STARTED = time.perf_counter()  # first: the cold start includes every import below

import argparse  # noqa: E402
import contextlib  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ARMS = ("original", "mended")
# Arms between the two, for `calibrate --against`: the hook with plain torch.compile, and
# torch.compile of graphmend.mend(model) without graphmend.compile's boundary.
STEP_ARMS = ("hooked", "mend_only")
# The mended arm with runtime-aware graphmend.compile: it profiles the model on its inputs and
# may enable Dynamo options for the breaks mending leaves (`runtime`, run where breaks are left).
RUNTIME_ARM = "runtime"
ALL_ARMS = ARMS + STEP_ARMS + (RUNTIME_ARM,)
# Compiled outputs are compared with the original arm's eager output within these.
TOLERANCES = {
    "float32": {"rtol": 1e-4, "atol": 1e-5},
    "float16": {"rtol": 1e-2, "atol": 1e-3},
    "bfloat16": {"rtol": 1.6e-2, "atol": 1e-2},
}
# The parent writes its launch time here, so the child can add interpreter start-up.
LAUNCH_ENV = "GRAPHMEND_SUITE_LAUNCHED"


# ---------------------------------------------------------------------------------------------
# One arm, in its own process.


def arm_main(args) -> dict:
    launched = float(os.environ[LAUNCH_ENV]) if LAUNCH_ENV in os.environ else None
    record = {"model": args.model, "arm": args.arm, "backend": args.backend, "device": args.device}
    hook = None
    marks = {}
    import torch
    import torch._dynamo  # both arms pay this import before the timed torch.compile call

    if args.arm != "original":
        # Timed alone, after torch: the stdlib modules both need are charged to torch. The
        # hook is installed before graphmend.compile's module is imported, as a program would
        # (its helper starts sooner); what install spends in the hook counts as the hook's.
        import_started = time.perf_counter()
        import graphmend

        hook = graphmend.install(["transformers"], cache_dir=args.graphmend_cache)
        import graphmend.compiling  # graphmend.compile's module, which the hook does not load

        marks["graphmend_import_s"] = time.perf_counter() - import_started - hook.stats.seconds

    sys.path.insert(0, HERE)
    import survey  # noqa: F401  (survey imports zoo, and zoo imports transformers)
    import zoo

    marks["imports_s"] = time.perf_counter() - STARTED
    warnings.filterwarnings("ignore")
    if args.device == "cpu":
        torch.set_num_threads(args.threads)
    model, kwargs = zoo.build(args.model, seed=0)
    model, kwargs = model.to(args.device), {k: _to(v, args.device) for k, v in kwargs.items()}
    marks["built_s"] = time.perf_counter() - STARTED
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)

    wrap_started = time.perf_counter()
    if args.arm == "mended":
        with _timed(graphmend.mender, "_mend_with") as mend_time:
            compiled = graphmend.compile(model, backend=args.backend)
    elif args.arm == RUNTIME_ARM:
        compiled = graphmend.compile(model, example_kwargs=kwargs, backend=args.backend)
        record[RUNTIME_ARM] = _runtime_report(graphmend.compile_report(compiled))
    elif args.arm == "mend_only":
        compiled = torch.compile(graphmend.mend(model), backend=args.backend)
    else:
        compiled = torch.compile(model, backend=args.backend)
    record["compile_wrap_s"] = time.perf_counter() - wrap_started

    call_started = time.perf_counter()
    with torch.no_grad():
        compiled_out = compiled(**kwargs)
    sync()
    now = time.perf_counter()
    record["first_call_s"] = now - call_started
    if args.steady_only:
        turns = Turns(args.turns, args.cpu) if args.turns else None
        record["steady"] = steady_state(compiled, kwargs, args.repeats, args.steady_seconds, sync, turns)
        return record
    record["cold_start_s"] = now - STARTED
    record["cold_start_from_launch_s"] = time.time() - launched if launched else None
    record["marks"] = marks
    # Before anything else imports modules. Garbage collections that ran inside the hook are
    # left out: the interpreter collects when allocations pass a threshold, and a full
    # collection over torch's heap (0.2-0.3 s) lands in the hook or next to it by chance; the
    # original arm pays as much collecting (HookStats).
    hook_seconds = hook.stats.seconds - hook.stats.gc_seconds if hook else 0.0

    record["environment"] = _environment(args.device)
    record["setup"] = survey._describe_setup(model, kwargs)
    flush = _flusher(hook)
    with torch.no_grad():
        eager_out = model(**kwargs)
    flush()
    record["weights_sha256"] = state_dict_digest(model)
    record["inputs_sha256"] = _digest(_flatten(kwargs))
    os.makedirs(args.out, exist_ok=True)
    tag = f"{args.model}-{args.arm}"
    for kind, value in (("eager", eager_out), ("compiled", compiled_out)):
        path = os.path.join(args.out, f"{tag}-{kind}.pt")
        torch.save(_flatten(value), path)
        record[f"{kind}_output"] = path

    if args.repeats > 0:
        record["steady"] = steady_state(compiled, kwargs, args.repeats, args.steady_seconds, sync)
    if args.arm == "mended":
        record["graphmend"] = {
            "hook_s": hook_seconds,
            "hook_gc_s": hook.stats.gc_seconds,
            "compile_mend_s": mend_time[0],
            "import_s": marks["graphmend_import_s"],
            # import graphmend, install and import graphmend.compiling, after torch
            "import_timed": "install",
            # The hook's time, mending inside graphmend.compile and importing graphmend.
            "total_s": hook_seconds + mend_time[0] + marks["graphmend_import_s"],
            "mended": hook.stats.mended,
            "cache_hits": hook.stats.cache_hits,
            "failed": hook.stats.failed,
        }
    if not args.skip_breaks:
        target = graphmend.mend(model) if args.arm in ("mended", "mend_only", RUNTIME_ARM) else model
        options = record.get(RUNTIME_ARM, {}).get("enabled", [])
        with torch._dynamo.config.patch(dict.fromkeys(options, True)):  # what the arm runs
            record["breaks"] = break_counts(target, kwargs, flush)
    return record


def _runtime_report(report) -> dict:
    """The runtime arm's CompileReport: breaks as `explain` reasons, the options enabled."""
    return {
        "enabled": sorted(report.capture_options),
        "rejected": report.rejected,
        "reasons_before": len(report.breaks_before),
        "reasons_after": len(report.breaks_after),
        "left": [str(info) for info in report.breaks_after],
    }


@contextlib.contextmanager
def _timed(owner, name):
    """Adds up the time spent in `owner.name` while the block runs: graphmend.compile's own
    mending, apart from torch.compile's set-up (which both arms pay)."""
    original, total = getattr(owner, name), [0.0]

    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            total[0] += time.perf_counter() - started

    setattr(owner, name, timed)
    try:
        yield total
    finally:
        setattr(owner, name, original)


def _to(value, device):
    return value.to(device) if hasattr(value, "to") else value


def _flusher(hook):
    if hook is None:
        return lambda: None
    from graphmend import runtime

    return runtime.flush


WARMUP_CALLS = 3
SLICE_S = 0.05  # one turn of a paired round


def steady_state(compiled, kwargs, repeats: int, seconds: float, sync, turns=None) -> dict:
    """Median latency of the calls made in `seconds` after warm-up (at least `repeats`
    calls), and throughput over calls back to back for half as long. With `turns` (a paired
    round), the calls are made in SLICE_S turns taken with the other arm's process, and
    throughput is examples over the summed call times."""
    import torch

    with torch.no_grad():
        # The first calls after a compilation are slow for a while (lazy set-up, compile
        # workers winding down): warm up for a few calls and at least half of `seconds`.
        _calls_for(compiled, kwargs, sync, WARMUP_CALLS, seconds / 2)
        if turns is None:
            times = _calls_for(compiled, kwargs, sync, repeats, seconds)
            started = time.perf_counter()
            calls = len(_calls_for(compiled, kwargs, lambda: None, repeats, seconds / 2))
            sync()
            elapsed = time.perf_counter() - started
        else:
            times = turns.take(lambda: _calls_for(compiled, kwargs, sync, 1, SLICE_S), seconds)
            calls, elapsed = len(times), sum(times)
    batch = _batch_size(kwargs)
    return {
        "repeats": len(times),
        "window_s": seconds,
        "paired": turns is not None,
        "median_ms": statistics.median(times) * 1000,
        "min_ms": min(times) * 1000,
        "max_ms": max(times) * 1000,
        "batch": batch,
        "throughput_per_s": calls * batch / elapsed,
    }


class Turns:
    """This process's end of a paired round's token ring: two processes, pinned to one CPU,
    measure in turns, each starting a slice when the other hands it the token, so both arms
    are measured through the same seconds of the machine. `spec` is "INBOX,OUTBOX,READY"
    (inherited pipe descriptors)."""

    def __init__(self, spec: str, cpu: int):
        self.inbox, self.outbox, self.ready = (int(fd) for fd in spec.split(","))
        self.cpu = cpu

    def take(self, one_slice, seconds: float) -> list:
        os.sched_setaffinity(0, {self.cpu})  # this thread: torch runs on one thread
        os.write(self.ready, b"r")
        os.close(self.ready)
        times = []
        for _ in range(max(1, round(seconds / SLICE_S))):
            if not os.read(self.inbox, 1):
                raise RuntimeError("the other process of the paired round stopped")
            times += one_slice()
            try:
                os.write(self.outbox, b"t")
            except BrokenPipeError:  # the other process took its last turn and exited
                pass
        return times


def _calls_for(compiled, kwargs, sync, at_least: int, seconds: float) -> list:
    """Calls `compiled` until it has been called `at_least` times and `seconds` have passed;
    returns each call's duration (through `sync`)."""
    times = []
    started = time.perf_counter()
    while len(times) < at_least or time.perf_counter() - started < seconds:
        call_started = time.perf_counter()
        compiled(**kwargs)
        sync()
        times.append(time.perf_counter() - call_started)
    return times


def _batch_size(kwargs) -> int:
    for value in kwargs.values():
        if hasattr(value, "shape") and len(value.shape) > 0:
            return int(value.shape[0])
    return 1


def break_counts(model, kwargs, flush) -> dict:
    """Explain and the counting backend, each after a Dynamo reset (as survey.py does)."""
    import torch
    import survey

    result = {}
    for step, measure in (("explain", survey.explain), ("counting_backend", survey.count_graphs)):
        torch._dynamo.utils.counters.clear()
        started = time.perf_counter()
        try:
            result[step] = measure(model, kwargs)
        except Exception as error:  # one failing measurement is a result
            result[step] = {"error": survey._error_text(error)}
        flush()
        result[step]["seconds"] = time.perf_counter() - started
    for key in ("breaks", "logged_breaks"):  # full stacks are in survey.py's JSON; keep it small
        for item in result.get("explain", {}).get(key, []) + result.get("counting_backend", {}).get(key, []):
            item.pop("reason_full", None)
    return result


def _flatten(value, prefix="out", out=None, depth=0) -> dict:
    """Every tensor reachable in a model output (ModelOutput, tuples, caches) by path."""
    import torch

    out = {} if out is None else out
    if isinstance(value, torch.Tensor):
        out[prefix] = value.detach().cpu()
    elif depth > 8 or value is None or isinstance(value, (str, bytes, int, float, bool)):
        pass
    elif isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{prefix}.{key}", out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _flatten(item, f"{prefix}.{index}", out, depth + 1)
    elif hasattr(value, "__dict__"):  # cache objects
        for key, item in vars(value).items():
            _flatten(item, f"{prefix}.{key}", out, depth + 1)
    return out


def _digest(tensors: dict) -> str:
    import torch

    digest = hashlib.sha256()
    for name in sorted(tensors):
        tensor = tensors[name].detach().cpu().contiguous()
        digest.update(f"{name}:{tensor.dtype}:{list(tensor.shape)}\0".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def state_dict_digest(model) -> str:
    return _digest(dict(model.state_dict()))


def _environment(device: str) -> dict:
    import torch
    import transformers

    env = {
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "cpu": _cpu_name(),
        "cpu_count": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
    }
    if device == "cuda":
        env["gpu"] = torch.cuda.get_device_name()
    return env


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# ---------------------------------------------------------------------------------------------
# The parent: every model, three arm runs each, then the comparisons.


def run_arm(
    args, model: str, arm: str, graphmend_cache: str, out_dir: str, label: str,
    quick=False, steady_only=False, inductor_cache=None, steady=True,
) -> dict:
    """One arm in a fresh process, with a fresh Inductor cache unless `inductor_cache` names
    one to use (and keep); an error is a result. `quick`: no steady state and no break
    counts; `steady=False`: no steady state."""
    with contextlib.ExitStack() as stack:
        if inductor_cache is None:
            inductor_cache = stack.enter_context(tempfile.TemporaryDirectory(prefix="inductor-"))
        process = ArmProcess(
            args, model, arm, graphmend_cache, out_dir, label, inductor_cache, quick=quick,
            steady_only=steady_only, steady=steady,
        )  # fmt: skip
        return process.result(args.timeout)


class ArmProcess:
    """One arm's process, started; `result` waits for its record (an error is a result)."""

    def __init__(
        self, args, model, arm, graphmend_cache, out_dir, label, inductor_cache,
        quick=False, steady_only=False, turns=None, steady=True,
    ):  # fmt: skip
        self.json_path = os.path.join(out_dir, f"{model}-{label}.json")
        command = [
            sys.executable, os.path.abspath(__file__), "arm", "--model", model, "--arm", arm,
            "--backend", args.backend, "--device", args.device, "--threads", str(args.threads),
            "--repeats", str(args.repeats if steady and not quick else 0), "--steady-seconds", str(args.steady_seconds),
            "--graphmend-cache", graphmend_cache,
            "--out", os.path.join(out_dir, label), "--json", self.json_path,
        ]  # fmt: skip
        if quick:
            command.append("--skip-breaks")
        if steady_only:
            command.append("--steady-only")
        if turns:
            command += ["--turns", ",".join(map(str, turns)), "--cpu", str(args.pair_cpu)]
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=inductor_cache)
        env[LAUNCH_ENV] = repr(time.time())
        self.output = tempfile.TemporaryFile("w+")  # a file, not a pipe: two children at once
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            command, env=env, stdout=self.output, stderr=subprocess.STDOUT, text=True, pass_fds=turns or ()
        )

    def result(self, timeout: float) -> dict:
        try:
            returncode = self.process.wait(timeout=max(1.0, timeout - (time.perf_counter() - self.started)))
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return {"error": f"timed out after {timeout} s", "wall_s": time.perf_counter() - self.started}
        wall = time.perf_counter() - self.started
        self.output.seek(0)
        text = self.output.read()
        self.output.close()
        if returncode != 0 or not os.path.exists(self.json_path):
            return {"error": text[-3000:], "returncode": returncode, "wall_s": wall}
        with open(self.json_path) as handle:
            record = json.load(handle)
        record["wall_s"] = wall
        return record


def _graphmend_cache(out_dir: str, model: str) -> str:
    """The hook's cache of one model's mended arms: the cold run fills it, the rest read it."""
    return os.path.join(out_dir, "graphmend-cache", model)


def steady_rounds(args, model: str, out_dir: str) -> dict:
    """The steady state of each arm in `args.steady_rounds` paired rounds. In a round an
    original and a mended process start together, compile (each arm keeps one Inductor cache
    across its processes), warm up, and then measure in turns on one CPU (`Turns`), so a
    change in the machine's speed falls on both arms alike; which arm takes the first turn
    alternates."""
    cache = _graphmend_cache(out_dir, model)
    rounds = {arm: [] for arm in ARMS}
    with tempfile.TemporaryDirectory(prefix="inductor-rounds-") as root:
        for index in range(args.steady_rounds):
            sides = [(arm, f"steady-{arm}-{index}", os.path.join(root, arm)) for arm in ARMS]
            for arm, record in zip(ARMS, _round_in_turns(args, model, cache, out_dir, sides, index)):
                rounds[arm].append(_steady_of(record))
    return rounds


def _round_in_turns(args, model, cache, out_dir, sides, index) -> list:
    """`_paired_round` of `sides`, the first turn alternating with the round's `index`;
    the records come back in `sides` order either way."""
    if index % 2 == 0:
        return _paired_round(args, model, cache, out_dir, sides)
    return _paired_round(args, model, cache, out_dir, sides[::-1])[::-1]


def _steady_of(record: dict) -> dict:
    return record["steady"] if "steady" in record else {"error": record["error"][-500:]}


def _paired_round(args, model, cache, out_dir, sides) -> list:
    """Starts two arm processes, `sides` = [(arm, label, Inductor cache)] in turn order, with
    a token ring between them; hands the first turn to the first once both are warm, and
    returns their records in that order."""
    import select

    first_in, second_out = os.pipe()  # the second process hands the token to the first
    second_in, first_out = os.pipe()
    ready_in, ready_out = os.pipe()
    token = os.dup(second_out)  # the parent hands out the first turn
    ends = [(first_in, first_out, ready_out), (second_in, second_out, ready_out)]
    processes = [
        ArmProcess(args, model, arm, cache, out_dir, label, inductor_cache, steady_only=True, turns=turns)
        for (arm, label, inductor_cache), turns in zip(sides, ends)
    ]
    for fd in (first_in, first_out, second_in, second_out, ready_out):
        os.close(fd)  # the children hold these; a child's exit then reads as end of file
    ready, deadline = 0, time.perf_counter() + args.timeout
    while ready < 2 and time.perf_counter() < deadline:
        if select.select([ready_in], [], [], 1.0)[0]:
            got = os.read(ready_in, 2)
            ready += len(got)
            if not got:
                break  # both children gone
        elif any(p.process.poll() is not None for p in processes):
            break
    if ready == 2:
        os.write(token, b"t")
    os.close(token)
    os.close(ready_in)
    return [process.result(args.timeout) for process in processes]


def calibrate_main(args) -> dict:
    """Paired rounds of one arm against itself: what the paired design reads when nothing
    differs; or, with `--against`, against another arm, to split a difference between the
    original and mended arms into steps (STEP_ARMS)."""
    with tempfile.TemporaryDirectory(prefix="calibrate-") as out_dir:
        cache = args.graphmend_cache or _graphmend_cache(out_dir, args.model)
        arms = (args.arm, args.against or args.arm)
        return {"model": args.model, **_rounds_between(args, args.model, arms, cache, out_dir)}


def _rounds_between(args, model, arms, cache, out_dir) -> dict:
    """`args.steady_rounds` paired rounds of two arms; the ratio is the second arm's latency
    over the first's; which takes the first turn alternates."""
    sys.path.insert(0, HERE)
    from suite_report import _quotient

    rounds = []
    with tempfile.TemporaryDirectory(prefix="inductor-between-") as root:
        for index in range(args.steady_rounds):
            sides = [(arm, f"between-{side}-{index}", os.path.join(root, side)) for arm, side in zip(arms, "ab")]
            records = _round_in_turns(args, model, cache, out_dir, sides, index)
            first, second = (_steady_of(record) for record in records)
            ratio = _quotient(second.get("median_ms"), first.get("median_ms"))
            rounds.append({"first": first, "second": second, "ratio": ratio})
            shown = [f"{r['median_ms']:.4f}" if "median_ms" in r else "error" for r in (first, second)]
            print(f"round {index}: {' / '.join(shown)} ms, ratio {ratio}", file=sys.stderr, flush=True)
    ratios = sorted(r["ratio"] for r in rounds if r["ratio"] is not None)
    return {"arms": list(arms), "rounds": rounds, "ratios": ratios,
            "median_ratio": statistics.median(ratios) if ratios else None}  # fmt: skip


def compare_outputs(original: dict, mended: dict) -> dict:
    """Mended eager vs original eager exactly; both compiled outputs vs the original eager
    within the dtype's tolerance. `mended`: the record of any arm that mends (the runtime
    arm's too)."""
    import torch

    reference = torch.load(original["eager_output"])
    result = {"eager_exact": _exact(reference, torch.load(mended["eager_output"]))}
    compiled = {arm: torch.load(record["compiled_output"]) for arm, record in zip(ARMS, (original, mended))}
    for arm in ARMS:
        result[f"compiled_{arm}"] = _close(reference, compiled[arm])
    # Where the compiler itself moves the numbers, this says whether mending moves them more.
    result["compiled_mended_vs_original"] = _close(compiled["original"], compiled["mended"])
    result["equal"] = result["eager_exact"]["equal"] and all(
        result[f"compiled_{arm}"]["equal"] for arm in ARMS
    )
    return result


def _exact(reference: dict, other: dict) -> dict:
    import torch

    if reference.keys() != other.keys():
        return {"equal": False, "why": f"different outputs: {sorted(reference.keys() ^ other.keys())[:5]}"}
    equal = all(torch.equal(reference[k], other[k]) for k in reference)
    result = {"equal": equal, "tensors": len(reference)}
    if not equal:
        result["max_abs_diff"] = _max_diff(reference, other)
    return result


def _close(reference: dict, other: dict) -> dict:
    import torch

    if reference.keys() != other.keys():
        return {"equal": False, "why": f"different outputs: {sorted(reference.keys() ^ other.keys())[:5]}"}
    failing = []
    for key, ref in reference.items():
        tol = TOLERANCES.get(str(ref.dtype).replace("torch.", ""), {"rtol": 0.0, "atol": 0.0})
        got = other[key]
        same = ref.shape == got.shape and (
            torch.allclose(got.double(), ref.double(), equal_nan=True, **tol)
            if ref.is_floating_point()
            else torch.equal(ref, got)
        )
        if not same:
            failing.append(key)
    return {
        "equal": not failing,
        "exact": all(torch.equal(reference[k], other[k]) for k in reference),
        "max_abs_diff": _max_diff(reference, other),
        "failing": failing[:5],
    }


def _max_diff(reference: dict, other: dict) -> float:
    worst = 0.0
    for key, ref in reference.items():
        got = other[key]
        if ref.shape != got.shape:
            return float("inf")
        if ref.numel():
            diff = (got.double() - ref.double()).abs()
            diff[ref == got] = 0.0  # equal infinities (masked logits) differ by nothing
            worst = max(worst, diff.nan_to_num(nan=float("inf")).max().item())
    return worst


def run_model(args, model: str, out_dir: str) -> dict:
    cache = _graphmend_cache(out_dir, model)  # the cold arm starts it anew
    original = run_arm(args, model, "original", cache, out_dir, "original")
    entry = {"model": model, "original": original, **mended_arms(args, model, cache, out_dir)}
    if args.repeats > 0 and args.steady_rounds > 0:
        entry["steady_rounds"] = steady_rounds(args, model, out_dir)
    if compare_arms(entry) and breaks_left(entry):
        runtime_entry(args, entry, out_dir)
    return entry


def compare_arms(entry: dict) -> bool:
    """Compares the entry's original and mended outputs and weights; False when an arm failed."""
    original, mended = entry["original"], entry["mended"]
    if "error" in original or "error" in mended:
        return False
    try:
        entry["outputs"] = compare_outputs(original, mended)
    except Exception as error:
        entry["outputs"] = {"equal": False, "error": "".join(traceback.format_exception_only(error))}
    entry["weights_equal"] = original["weights_sha256"] == mended["weights_sha256"]
    return True


def mended_arms(args, model: str, cache: str, out_dir: str) -> dict:
    """The mended arm with an empty GraphMend cache (which it fills), then with that cache.
    The cache is emptied first: a model run again into the same folder (`run --update`,
    `cost`) would otherwise start warm."""
    shutil.rmtree(cache, ignore_errors=True)
    mended = run_arm(args, model, "mended", cache, out_dir, "mended-cold")
    warm = run_arm(args, model, "mended", cache, out_dir, "mended-warm", quick=True)
    return {"mended": mended, "mended_warm": warm}


def cost_main(args) -> None:
    """Runs the arms of result JSONs made by `run` again, original then mended (the cold one
    with its GraphMend cache emptied) then mended warm, for the cold starts side by side and
    what GraphMend costs after a change to it; outputs are compared again. The steady-state
    rounds and the runtime arm stay as they were."""

    def measure(entry, out_dir):
        model = entry["model"]
        cache = _graphmend_cache(out_dir, model)
        entry["original"] = run_arm(args, model, "original", cache, out_dir, "original")
        entry.update(mended_arms(args, model, cache, out_dir))
        compare_arms(entry)
        return _summary_line(entry)

    _update_results(args, lambda entry: True, measure, "cost")


def breaks_left(entry) -> bool:
    """Whether the mended arm of a model's entry still breaks (explain)."""
    count = entry["mended"].get("breaks", {}).get("explain", {}).get("graph_break_count")
    return bool(count)


def runtime_entry(args, entry: dict, out_dir: str) -> None:
    """Adds the runtime arm to a model's entry: its record (breaks counted under the options
    it enabled), its outputs against the original arm's eager output, and, when it enabled
    options, paired steady-state rounds of the mended arm against it (ratio runtime / mended)."""
    model = entry["model"]
    cache = _graphmend_cache(out_dir, model)  # the mended arms filled it
    record = run_arm(args, model, RUNTIME_ARM, cache, out_dir, RUNTIME_ARM, steady=False)
    entry[RUNTIME_ARM] = record
    if "error" in record or "error" in entry["original"]:
        return
    entry["runtime_outputs"] = compare_outputs(entry["original"], record)
    if record[RUNTIME_ARM]["enabled"] and args.repeats > 0 and args.steady_rounds > 0:
        entry["runtime_rounds"] = _rounds_between(args, model, ("mended", RUNTIME_ARM), cache, out_dir)


def runtime_main(args) -> None:
    """Adds (or replaces) the runtime arm of result JSONs made by `run` with the transformers
    version this process imports: for the models named, or else those with breaks left."""

    def measure(entry, out_dir):
        runtime_entry(args, entry, out_dir)
        return _runtime_line(entry)

    _update_results(args, breaks_left, measure, "runtime")


def _update_results(args, by_default, measure, kind, extra=None) -> None:
    """Runs `measure(entry, out_dir)` on the entries of each result JSON in `args.results`
    named by `--models` (else those `by_default` picks), writing the file after each; then
    lists this command under "updates" (as `kind`, with the models it measured), and sets
    `extra`."""
    sys.path.insert(0, HERE)
    import zoo

    for path in args.results:
        result = _load_result(path, zoo.TF_VERSION)
        out_dir = os.path.splitext(path)[0] + ".d"
        wanted = set(args.models.split(",")) if args.models else None
        started, measured = time.perf_counter(), []
        for entry in result["models"]:
            if (entry["model"] in wanted) if wanted else by_default(entry):
                line = measure(entry, out_dir)
                measured.append(entry["model"])
                print(f"{entry['model']:>15}: {line}", file=sys.stderr, flush=True)
                _write(path, result)
        _add_update(result, kind, sys.argv, measured, started)
        result.update(extra or {})
        _write(path, result)


def _add_update(result: dict, kind: str, argv, models: list, started: float) -> dict:
    """Lists a later command on `result` under "updates", in the order they ran: `kind` is
    "run" (models added or run again), "steady" (steady-state rounds), "cost" (both arms
    again, without the rounds) or "runtime" (the runtime-aware arm)."""
    update = {
        "kind": kind,
        "command": " ".join(_display_argv(argv)),
        "models": models,
        "seconds": time.perf_counter() - started,
    }
    result["updates"] = result.get("updates", []) + [update]
    return result


def _runtime_line(entry: dict) -> str:
    record = entry[RUNTIME_ARM]
    if "error" in record:
        return "runtime ERROR " + (record["error"].strip().splitlines() or ["?"])[-1][:80]
    explain = record.get("breaks", {}).get("explain", {})
    ratio = entry.get("runtime_rounds", {}).get("median_ratio")
    return (
        f"runtime breaks={explain.get('graph_break_count', '?')} enabled={record[RUNTIME_ARM]['enabled']}"
        f" outputs_equal={entry.get('runtime_outputs', {}).get('equal')} ratio={ratio}"
    )


def compare_main(args) -> None:
    """Recomputes the output comparisons of result JSONs from their saved outputs."""
    for path in args.results:
        with open(path) as handle:
            result = json.load(handle)
        for entry in result["models"]:
            original, mended = entry["original"], entry["mended"]
            if "error" not in original and "error" not in mended:
                entry["outputs"] = compare_outputs(original, mended)
            runtime = entry.get(RUNTIME_ARM)
            if runtime and "error" not in original and "error" not in runtime:
                entry["runtime_outputs"] = compare_outputs(original, runtime)
        result["tolerances"] = TOLERANCES
        _write(path, result)


def steady_main(args) -> None:
    """Adds (or replaces) the steady-state rounds of result JSONs made by `run` with the
    transformers version this process imports."""

    def measure(entry, out_dir):
        entry["steady_rounds"] = steady_rounds(args, entry["model"], out_dir)
        return _rounds_line(entry["steady_rounds"])

    extra = {"steady_seconds": args.steady_seconds}  # the report quotes it with the command
    _update_results(args, lambda entry: True, measure, "steady", extra)


def _rounds_line(rounds: dict) -> str:
    def shown(record):
        return f"{record['median_ms']:.2f}" if "median_ms" in record else "error"

    return " ".join(f"{arm}=[{', '.join(shown(r) for r in rounds[arm])}] ms" for arm in ARMS)


def run_main(args) -> dict:
    sys.path.insert(0, HERE)
    import zoo

    names = args.models.split(",") if args.models else list(zoo.MODELS)
    unknown = [n for n in names if n not in zoo.MODELS]
    if unknown:
        raise SystemExit(f"unknown models {unknown}; known: {', '.join(zoo.MODELS)}")
    out = args.out or f"results-{zoo.TF_VERSION}.json"
    out_dir = args.work_dir or os.path.splitext(out)[0] + ".d"
    os.makedirs(out_dir, exist_ok=True)
    previous = _previous(out, zoo.TF_VERSION) if args.update else None
    started = time.perf_counter()
    entries = []
    for name in names:
        entries.append(run_model(args, name, out_dir))
        print(_summary_line(entries[-1]), file=sys.stderr, flush=True)
        _write(out, _result(args, zoo.TF_VERSION, entries, started, sys.argv, previous))  # partial results survive
    return _result(args, zoo.TF_VERSION, entries, started, sys.argv, previous)


def _previous(path: str, tf_version: str):
    """The result `run --update` adds to (None when there is none yet)."""
    return _load_result(path, tf_version) if os.path.exists(path) else None


def _load_result(path: str, tf_version: str) -> dict:
    """A result JSON, refused unless it was made with the transformers this process imports."""
    with open(path) as handle:
        result = json.load(handle)
    if result["transformers"] != tf_version:
        raise SystemExit(f"{path} is for transformers {result['transformers']}, this is {tf_version}")
    return result


def _result(args, tf_version, entries, started, argv, previous=None) -> dict:
    """The result JSON; with `previous` (`run --update`), that result with these models'
    entries replaced or added and this run listed under "updates"."""
    if previous is not None:
        names = [entry["model"] for entry in entries]
        ran = dict(zip(names, entries))
        models = [ran.pop(entry["model"], entry) for entry in previous["models"]] + list(ran.values())
        return _add_update({**previous, "models": models}, "run", argv, names, started)
    return {
        "transformers": tf_version,
        "device": args.device,
        "backend": args.backend,
        "repeats": args.repeats,
        "steady_seconds": args.steady_seconds,
        "steady_rounds": args.steady_rounds,
        "tolerances": TOLERANCES,
        "command": " ".join(_display_argv(argv)),
        "pythonpath": os.environ.get("PYTHONPATH", ""),
        "seconds": time.perf_counter() - started,
        "models": entries,
    }


def _display_argv(argv):
    script = os.path.relpath(os.path.abspath(argv[0]))
    return ["python", script, *argv[1:]]


def _summary_line(entry: dict) -> str:
    parts = [f"{entry['model']:>15}:"]
    for arm in ("original", "mended"):
        record = entry[arm]
        if "error" in record:
            parts.append(f"{arm} ERROR ({record['error'].strip().splitlines()[-1][:80] if record['error'].strip() else '?'})")
            continue
        explain = record.get("breaks", {}).get("explain", {})
        parts.append(
            f"{arm} breaks={explain.get('graph_break_count', '?')} cold={record['cold_start_s']:.1f}s"
            f" median={record.get('steady', {}).get('median_ms', float('nan')):.2f}ms"
        )
    if "outputs" in entry:
        parts.append(f"outputs_equal={entry['outputs']['equal']} weights_equal={entry['weights_equal']}")
    warm = entry["mended_warm"]
    if "graphmend" in warm:
        parts.append(f"hook warm={warm['graphmend']['total_s'] * 1000:.0f}ms")
    return " ".join(parts)


def _write(path: str, result: dict) -> None:
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "w") as handle:
        json.dump(result, handle, indent=1)
        handle.write("\n")


# ---------------------------------------------------------------------------------------------


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)

    def common(p):
        p.add_argument("--backend", default="inductor", help="torch.compile backend (inductor, eager)")
        p.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
        p.add_argument("--repeats", type=int, default=20, help="timed calls at least (0: no steady state)")
        # Seconds, not a few dozen calls: on the 2-core VM calls run at one of two speeds about
        # 2x apart (Pegasus: 0.15 or 0.29 ms) for milliseconds to seconds at a time, whichever
        # code runs, so a median over a few milliseconds of calls lands on either.
        p.add_argument(
            "--steady-seconds", type=float, default=2.0,
            help="latency window; warm-up and throughput take half as long each (default 2)",
        )  # fmt: skip
        # One thread by default: on a small shared machine OpenMP's barriers stall whenever
        # another process holds a core, which swamps millisecond latencies.
        p.add_argument("--threads", type=int, default=1, help="torch threads on the CPU (default 1)")

    def pairing(p, rounds):
        p.add_argument("--timeout", type=float, default=1200, help="seconds per process")
        p.add_argument("--steady-rounds", type=int, default=rounds, help="paired steady-state rounds")
        p.add_argument(
            "--pair-cpu", type=int, default=max(os.sched_getaffinity(0)),
            help="the CPU a paired round measures on (default: the last)",
        )  # fmt: skip

    arm = sub.add_parser("arm", help="one model, one arm, in this process")
    arm.add_argument("--model", required=True)
    arm.add_argument("--arm", required=True, choices=ALL_ARMS)
    arm.add_argument("--graphmend-cache", default=None, help="the hook's cache (default: none)")
    arm.add_argument("--out", required=True, help="folder for the saved outputs")
    arm.add_argument("--json", help="write the record here (default: stdout)")
    arm.add_argument("--skip-breaks", action="store_true", help="no explain / counting backend")
    arm.add_argument("--steady-only", action="store_true", help="compile, then the steady state only")
    arm.add_argument("--turns", help="paired round: INBOX,OUTBOX,READY pipe descriptors (see Turns)")
    arm.add_argument("--cpu", type=int, default=0, help="paired round: the CPU to measure on")
    common(arm)

    run = sub.add_parser("run", help="every model, each arm in a fresh process")
    run.add_argument("--models", help="comma-separated names (default: all of zoo.MODELS)")
    run.add_argument("--out", help="result JSON (default: results-<transformers version>.json)")
    run.add_argument("--work-dir", help="saved outputs and caches (default: next to --out)")
    run.add_argument(
        "--update", action="store_true",
        help="add these models to --out (or replace them there) instead of writing a new result",
    )  # fmt: skip
    pairing(run, rounds=3)
    common(run)

    def on_results(name, help, rounds, models="every model in the file"):
        """A command that measures again some models of result JSONs made by `run`."""
        command = sub.add_parser(name, help=help)
        command.add_argument("results", nargs="+")
        command.add_argument("--models", help=f"comma-separated names (default: {models})")
        pairing(command, rounds=rounds)
        common(command)

    on_results("steady", "(re)measure the steady-state rounds of result JSONs", rounds=3)
    on_results(
        "cost", "(re)run the arms of result JSONs, without steady-state rounds: cold starts, GraphMend's cost",
        rounds=0,
    )  # fmt: skip

    calibrate = sub.add_parser(
        "calibrate", help="paired rounds of one arm against itself (an A/A check) or another arm"
    )
    calibrate.add_argument("--model", required=True)
    calibrate.add_argument("--arm", default="original", choices=ALL_ARMS)
    calibrate.add_argument(
        "--against", choices=ALL_ARMS,
        help="the second process's arm (default: --arm); ratios are second / first",
    )  # fmt: skip
    calibrate.add_argument("--graphmend-cache", default=None, help="the hook's cache (default: a new one)")
    pairing(calibrate, rounds=4)
    common(calibrate)

    on_results(
        RUNTIME_ARM, "(re)run the runtime-aware arm of result JSONs (default: models with breaks left)",
        rounds=3, models="those with breaks left",
    )  # fmt: skip

    compare = sub.add_parser("compare", help="recompute the output comparisons of result JSONs")
    compare.add_argument("results", nargs="+")

    report = sub.add_parser("report", help="docs/RESULTS.md and a plot from result JSONs")
    report.add_argument("results", nargs="+")
    report.add_argument("--out", default="docs/RESULTS.md")
    report.add_argument("--plot", default=None, help="PNG (default: results.png beside --out)")
    report.add_argument("--cost", nargs="*", default=[], help="cost runs (run --steady-rounds 0) to add")

    return parser


def main(argv=None):
    args = main_parser().parse_args(argv)
    if args.mode == "arm":
        record = arm_main(args)
        if args.json:
            _write(args.json, record)
        else:
            print(json.dumps(record, indent=1))
    elif args.mode == "run":
        result = run_main(args)
        _write(args.out or f"results-{result['transformers']}.json", result)
    elif args.mode == "compare":
        compare_main(args)
    elif args.mode == "steady":
        steady_main(args)
    elif args.mode == "cost":
        cost_main(args)
    elif args.mode == RUNTIME_ARM:
        runtime_main(args)
    elif args.mode == "calibrate":
        print(json.dumps(calibrate_main(args), indent=1))
    else:
        sys.path.insert(0, HERE)
        import suite_report

        plot = args.plot or os.path.join(os.path.dirname(args.out), "results.png")
        suite_report.write(args.results, args.out, plot, args.cost)


if __name__ == "__main__":
    main()
