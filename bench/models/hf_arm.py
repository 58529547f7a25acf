"""One arm of the transformers survey (hf_survey.py) for one class in one mode, in a process
of its own: build the class tiny (hf_build.py), run it eagerly, then compiled with a
counting backend, and record breaks, outputs, gradients, prints, logs and exceptions.

- **plain**: transformers as installed; `torch.compile(model, backend=counter)`. Chooses the
  input variant (the first that runs eagerly in eval mode) and saves its eager outputs and
  gradients for the mended arm.
- **mended**: `graphmend.install(["transformers"])` before transformers is imported, the same
  model and inputs, `torch.compile(model, backend=counter)` with `graphmend.runtime.flush()`
  after the call (the compile boundary of docs/HOOK.md). Compares its eager run with the
  plain one exactly and its compiled run with the plain eager one within suite.TOLERANCES,
  and tags every break of both arms with GraphMend's diagnostic at its line.

Modes: **eval** (`model.eval()`, `torch.no_grad()`) and **train** (`model.train()`, grad on,
the sum of the means of the floating outputs backpropagated). Every call is preceded by
`seed_everything` (torch, numpy, random), so the random draws of training-mode code agree between runs.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SEED = 0
MAX_EVENTS = 40

# Dynamo's graph-break ids (torch/_dynamo/graph_break_registry.json) by reason family.
FAMILIES = {
    "data-dependent branching": ("GB0170", "GB0035", "GB0034", "GB0360"),
    "Tensor.item()": ("GB0124", "GB0109"),
    "data-dependent operator": ("GB0033", "GB0246"),
    "dynamic-shape operator": ("GB0036", "GB0037", "GB0038"),
    "skipped function": ("GB0007", "GB0008", "GB0009", "GB0098", "GB0099", "GB4297"),
    "logging": ("GB0291",),
    "deepcopy": ("GB0179", "GB4198"),
}
FAMILY_ORDER = [*FAMILIES, "other"]


# ---------------------------------------------------------------------------------------------
# Entry point.


def arm(row: dict, mode: str, which: str, workdir: str, plain: dict | None = None) -> dict:
    """The record of one arm; `plain` is the plain arm's record (for the mended arm)."""
    hook = None
    if which == "mended":
        import graphmend

        cache = os.path.join(workdir, "graphmend-cache")
        hook = graphmend.install(["transformers"], cache_dir=cache, ahead=False)
    import torch

    warnings.filterwarnings("ignore")
    torch.set_num_threads(1)
    started = time.perf_counter()
    record: dict = {"arm": which}
    try:
        model, kwargs, variant = build_model(row, mode, plain)
    except Exception as error:  # a class that does not build tiny is a result
        return {**record, "status": "skipped", "reason": short_error(error)}
    record.update(variant=list(variant), **_describe(model, kwargs))
    eager = run(model, kwargs, mode)
    record["eager"] = eager.summary()
    compiled, record["breaks"] = compile_and_count(model, kwargs, mode, mended=which == "mended")
    record["compiled"] = compiled.summary()
    record["compiled_vs_eager"] = compare(eager, compiled, exact=False)
    stored = os.path.join(workdir, f"{row['class']}-{mode}-plain.pt")
    if which == "plain":
        runs = {"eager": eager, "compiled": compiled}
        torch.save({phase: {"outputs": r.outputs, "grads": r.grads} for phase, r in runs.items()}, stored)
    else:
        saved = torch.load(stored)
        reference = Run(**saved["eager"], error=plain["eager"]["error"])
        record["eager_vs_plain"] = compare(reference, eager, exact=True)
        record["compiled_vs_plain"] = compare(reference, compiled, exact=False)
        # Where compiling alone moves the original past the tolerance, the mended compiled
        # run is held to the original compiled one instead.
        original_compiled = Run(**saved["compiled"], error=plain["compiled"]["error"])
        record["compiled_vs_plain_compiled"] = compare(original_compiled, compiled, exact=False)
        record["events_vs_plain"] = {
            "eager": eager.summary()["events"] == plain["eager"]["events"],
            "compiled": compiled.summary()["events"] == plain["compiled"]["events"],
        }
        diagnostics = index_diagnostics(hook.report().diagnostics)
        for groups in (record["breaks"]["groups"], plain["breaks"]["groups"]):
            for group in groups:
                group["graphmend"] = tag(group, diagnostics)
        record["plain_groups_tagged"] = plain["breaks"]["groups"]
        record["hook"] = str(hook.stats)
    record["status"] = "ok"
    record["seconds"] = round(time.perf_counter() - started, 2)
    return record


def build_model(row: dict, mode: str, plain: dict | None = None):
    """(model in `mode`, inputs, variant): the plain arm's variant for the mended arm, else
    the first variant that runs eagerly in eval mode."""
    import torch
    import transformers

    import hf_build

    cls = getattr(transformers, row["class"])
    model = hf_build.tiny_model(cls)
    chosen = [tuple(plain["variant"])] if plain else hf_build.variants(cls)
    if not chosen:
        raise ValueError(f"forward takes none of the inputs made: {hf_build.forward_parameters(cls)[:6]}")
    failures = []
    for variant in chosen:
        kwargs = hf_build.make_inputs(model, variant)
        try:
            with torch.no_grad():
                seed_everything()
                model(**kwargs)
        except Exception as error:
            failures.append(f"{'+'.join(variant)}: {short_error(error)}")
            continue
        return (model.train() if mode == "train" else model), kwargs, variant
    raise RuntimeError(" | ".join(failures)[:600])


def _describe(model, kwargs) -> dict:
    from survey import _describe_setup

    setup = _describe_setup(model, kwargs)
    return {k: setup[k] for k in ("parameters", "attn_implementation", "inputs")}


# ---------------------------------------------------------------------------------------------
# Running a model and comparing runs.


class Run:
    """What one call did: outputs and gradients by path, events, the exception if any."""

    def __init__(self, outputs=None, grads=None, events=None, error=None):
        self.outputs = outputs or {}
        self.grads = grads or {}
        self.events = events or []
        self.error = error

    def summary(self) -> dict:
        return {"tensors": len(self.outputs), "grads": len(self.grads), "events": self.events, "error": self.error}


def run(function, kwargs, mode: str, after=None, translate=None) -> Run:
    """Calls `function(**kwargs)` once, seeded, in `mode`; in train mode backpropagates the
    loss and collects the parameters' gradients (of the module the function runs)."""
    import torch

    from suite import _flatten

    module = getattr(function, "_orig_mod", function)
    result = Run()
    with capture_events() as events, (torch.no_grad() if mode == "eval" else torch.enable_grad()):
        try:
            seed_everything()
            try:
                output = function(**kwargs)
            finally:
                if after:
                    after()
            result.outputs = _flatten(output)
            if mode == "train":
                result.grads = backward(module, output)
        except Exception as error:
            result.error = short_error(translate(error) if translate else error)
    result.events = events
    return result


def seed_everything() -> None:
    """torch's, numpy's and Python's generators: training-mode code draws from all three
    (wav2vec2's SpecAugment masks from numpy)."""
    import random

    import numpy
    import torch

    torch.manual_seed(SEED)
    numpy.random.seed(SEED)
    random.seed(SEED)


def backward(module, output) -> dict:
    """The sum of the means of the output's floating tensors that need grad, backpropagated;
    the parameters' gradients by name (and the gradients zeroed again)."""
    tensors = [t for t in _tensors(output) if t.requires_grad and t.is_floating_point()]
    if not tensors:
        return {}
    sum(t.float().mean() for t in tensors).backward()
    grads = {name: p.grad.detach().clone() for name, p in module.named_parameters() if p.grad is not None}
    module.zero_grad(set_to_none=True)
    return grads


def _tensors(value, depth=0):
    import torch

    if isinstance(value, torch.Tensor):
        yield value
    elif depth > 8 or value is None or isinstance(value, (str, bytes, int, float, bool)):
        return
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item, depth + 1)
    elif hasattr(value, "__dict__"):  # cache objects
        for item in vars(value).values():
            yield from _tensors(item, depth + 1)


def compare(reference: Run, other: Run, exact: bool) -> dict:
    """Outputs and gradients of `other` against `reference`: exactly (`torch.equal`) or within
    suite.TOLERANCES; and whether both raised the same exception."""
    from suite import _close, _exact

    check = _exact if exact else _close
    out = {"error_same": reference.error == other.error}
    if reference.error is None and other.error is None:
        out["outputs"] = check(reference.outputs, other.outputs)
        if reference.grads or other.grads:
            out["grads"] = check(reference.grads, other.grads)
    return out


class _ListHandler(logging.Handler):
    def __init__(self, sink: list):
        super().__init__(logging.DEBUG)
        self.sink = sink

    def emit(self, record):
        self.sink.append(f"log {record.levelname} {record.name}: {record.getMessage()}"[:200])


@contextlib.contextmanager
def capture_events():
    """Prints, transformers' and the root logger's records, and warnings raised outside
    torch, as one list of lines, in order of arrival (prints by line, at the end)."""
    events: list = []
    handler = _ListHandler(events)
    loggers = [logging.getLogger(), logging.getLogger("transformers")]
    stdout = io.StringIO()
    for logger in loggers:
        logger.addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(stdout):
            warnings.simplefilter("always")
            yield events
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
    events += [f"warning {w.category.__name__}: {w.message}"[:200] for w in caught if "/torch/" not in w.filename]
    events += [f"print: {line}"[:200] for line in stdout.getvalue().splitlines()]
    del events[MAX_EVENTS:]


# ---------------------------------------------------------------------------------------------
# Compiling and counting breaks.


def compile_and_count(model, kwargs, mode: str, mended: bool) -> tuple[Run, dict]:
    """`torch.compile(model, backend=counter)` called once: its run, and its breaks as the
    counting backend, Dynamo's counters and Dynamo's break log see them."""
    import torch
    import torch._dynamo

    from survey import BreakRecorder, GraphCounter, group_breaks

    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    counter = GraphCounter()
    compiled = torch.compile(model, backend=counter)
    after = translate = None
    if mended:
        from graphmend import runtime

        after, translate = runtime.flush, runtime.translate
    with BreakRecorder() as recorder:
        result = run(compiled, kwargs, mode, after=after, translate=translate)
    tally = dict(torch._dynamo.utils.counters["graph_break"])
    groups = group_breaks(recorder.breaks)
    for group in groups:
        group["gb_id"] = gb_id(group["reason"])
        group["family"] = family(group["gb_id"], group["reason"])
    breaks = {
        "graphs": counter.graphs,
        "dynamo_breaks": sum(tally.values()),
        "logged": len(recorder.breaks),
        "frames_skipped": sum(1 for b in recorder.breaks if b["mode"] == "frame skipped"),
        "dynamo_counter": {_first_line(k)[:160]: v for k, v in tally.items()},
        "groups": groups,
    }
    return result, breaks


_GB_IDS: dict = {}


def gb_id(gb_type: str) -> str | None:
    """Dynamo's id (GBxxxx) of a graph-break type, from torch's registry."""
    if not _GB_IDS:
        import torch._dynamo

        path = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
        if os.path.exists(path):
            with open(path) as handle:
                for key, entries in json.load(handle).items():
                    for entry in entries if isinstance(entries, list) else []:
                        _GB_IDS.setdefault(entry.get("Gb_type"), key)
    return _GB_IDS.get(gb_type)


def family(identifier: str | None, reason: str) -> str:
    """The reason family of a break: by its GB id, else by words of its reason."""
    for name, ids in FAMILIES.items():
        if identifier in ids:
            return name
    text = reason.lower()
    if "print" in text or "logg" in text or "warnings.warn" in text:
        return "logging"
    if "deepcopy" in text:
        return "deepcopy"
    return "other"


def _first_line(text: str) -> str:
    return next((line.strip() for line in str(text).splitlines() if line.strip()), "")


# ---------------------------------------------------------------------------------------------
# GraphMend's diagnostics at a break's line.


def index_diagnostics(diagnostics) -> dict:
    """{(transformers-relative file, line): [diagnostic]} over every line a site spans."""
    from survey import relative_to_package

    index: dict = {}
    for item in diagnostics:
        where = relative_to_package(item.filename)
        for line in range(item.line, max(item.line, item.end_line) + 1):
            index.setdefault((where, line), []).append(item)
    return index


def tag(group: dict, index: dict) -> dict:
    """fixed / declined (with GraphMend's reason) / untagged, for the site at a break."""
    where, _, line = (group.get("where") or "").rpartition(":")
    found = index.get((where, int(line))) if line.isdigit() else None
    if not found:
        return {"state": "untagged"}
    item = next((d for d in found if not d.fixed), found[0])  # a declined site explains a break
    state = "fixed" if item.fixed else "declined"
    return {"state": state, "code": item.code, "rewrite": item.rewrite, "reason": item.reason_id or item.reason}


def short_error(error: BaseException) -> str:
    from lm_survey import _short_error

    return _short_error(error)
