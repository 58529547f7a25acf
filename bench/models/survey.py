"""Graph-break survey of the model zoo under TorchDynamo.

For each model: build it, run it eagerly once, then (after `torch._dynamo.reset()`) run
`torch._dynamo.explain` and, separately, `torch.compile` with a backend that only counts
the FX graphs it is handed. Every break is reported with the first line of its reason and
the innermost frame outside torch (normally a line of transformers) with its source text.

    python bench/models/survey.py                      # all models, JSON on stdout
    python bench/models/survey.py --models bart,t5 --out survey.json
    PYTHONPATH=.venv/tf-4.52.4 python bench/models/survey.py --out survey-4.52.4.json

Summaries of several JSON files as Markdown: bench/models/survey_report.py.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
import warnings

import torch
import torch._dynamo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo  # noqa: E402

TORCH_DIR = os.path.dirname(torch.__file__)


def relative_to_package(filename: str) -> str:
    """`.../site-packages/transformers/models/x.py` -> `transformers/models/x.py`."""
    for marker in ("/transformers/", "/torch/"):
        position = filename.rfind(marker)
        if position >= 0:
            return filename[position + 1 :]
    return filename


def innermost_user_frame(stack):
    """The innermost frame not inside torch itself (prefers transformers' own code)."""
    outside_torch = [f for f in stack if not f.filename.startswith(TORCH_DIR)]
    in_transformers = [f for f in outside_torch if "/transformers/" in f.filename]
    chosen = in_transformers or outside_torch or list(stack)
    return chosen[-1] if chosen else None


def describe_frame(frame):
    if frame is None:
        return {"where": None, "function": None, "code": None}
    return {
        "where": f"{relative_to_package(frame.filename)}:{frame.lineno}",
        "function": frame.name,
        "code": (frame.line or "").strip(),
    }


def model_caller(stack) -> dict:
    """The innermost frame in a model file, when the break itself lies in a shared helper
    (transformers/utils, masking_utils, ...): that is the line a reader would mend."""
    frames = [f for f in stack if "/transformers/models/" in f.filename]
    innermost = innermost_user_frame(stack)
    if not frames or innermost is None or frames[-1] is innermost:
        return {}
    caller = describe_frame(frames[-1])
    return {"caller_where": caller["where"], "caller_code": caller["code"]}


def describe_break(reason) -> dict:
    text = str(reason.reason)
    first_line = _first_line(text)
    frame = innermost_user_frame(reason.user_stack)
    return {
        "reason": first_line,
        **describe_frame(frame),
        **model_caller(list(reason.user_stack)),
        "stack": [
            f"{relative_to_package(f.filename)}:{f.lineno} in {f.name}"
            for f in reason.user_stack
            if not f.filename.startswith(TORCH_DIR)
        ],
        "reason_full": text[:2000],
    }


SKIPPED_FRAME = "Failed to handle graph break gracefully"


def group_breaks(breaks: list[dict]) -> list[dict]:
    """Breaks with the same root cause (kind, innermost location, mode) merged and counted.

    One break deep in a call chain splits every enclosing frame's graph too; all those
    splits share the innermost location and count towards the same group.
    """
    groups: dict[tuple, dict] = {}
    for item in breaks:
        kind = item.get("gb_type") or item["reason"]
        mode = item.get("mode", "graph split")
        key = (kind, item["where"], mode)
        if key not in groups:
            groups[key] = {"count": 0, "reason": kind, "mode": mode, "where": item["where"], "code": item["code"]}
        group = groups[key]
        group["count"] += 1
        # A resumed frame's stack may start below the model code: its caller is unknown.
        if "caller_where" in item:
            callers = group.setdefault("callers", [])
            caller = {"where": item["caller_where"], "code": item["caller_code"]}
            if caller not in callers:
                callers.append(caller)
    return list(groups.values())


class BreakRecorder:
    """Records every graph break Dynamo logs, with its full user stack.

    `explain` keeps one terse reason per compiled graph; Dynamo's graph-break log has the
    readable reason ("Data-dependent branching") and the stack of the break itself. This
    wraps the private hook that writes that log, and is a no-op where it does not exist.
    """

    def __init__(self):
        self.breaks: list[dict] = []
        self._translator = None
        self._original = None

    def __enter__(self):
        from torch._dynamo import symbolic_convert

        self._translator = getattr(symbolic_convert, "InstructionTranslatorBase", None)
        self._original = getattr(self._translator, "log_graph_break", None)
        if self._original is None:
            return self
        recorder, original = self, self._original

        def log_graph_break(translator, code_options, reason, exc, *args, **kwargs):
            logged = getattr(exc, "logged", False)
            # First: a captured read may stop the trace here (graphmend.runtime.capture),
            # and then the break it would have been is not one.
            result = original(translator, code_options, reason, exc, *args, **kwargs)
            if not logged:
                recorder._record(translator, reason, exc)
            return result

        self._translator.log_graph_break = log_graph_break
        return self

    def __exit__(self, *exc_info):
        if self._original is not None:
            self._translator.log_graph_break = self._original

    def _record(self, translator, reason, exc):
        stack = getattr(exc, "real_stack", None)
        if stack is None:
            stack = torch._guards.TracingContext.extract_stack()
        first_line = _first_line(reason)
        frame = innermost_user_frame(list(stack))
        code = getattr(translator, "f_code", None)
        self.breaks.append(
            {
                "reason": first_line,
                # The root cause; `reason` of a break that surfaced from a callee names only
                # the call instruction of the frame being split.
                "gb_type": getattr(exc, "gb_type", None),
                "mode": "frame skipped" if first_line.startswith(SKIPPED_FRAME) else "graph split",
                # The frame Dynamo was translating: where the graph is split (or skipped).
                "split_in": code and f"{relative_to_package(code.co_filename)}:{getattr(translator, 'lineno', '?')}",
                **describe_frame(frame),
                **model_caller(list(stack)),
                "stack": [
                    f"{relative_to_package(f.filename)}:{f.lineno} in {f.name}"
                    for f in stack
                    if not f.filename.startswith(TORCH_DIR)
                ],
            }
        )


class GraphCounter:
    """A Dynamo backend that counts the FX graphs it receives and runs them unchanged."""

    def __init__(self):
        self.graphs = 0
        self.ops = 0

    def __call__(self, gm: torch.fx.GraphModule, example_inputs):
        self.graphs += 1
        self.ops += sum(1 for node in gm.graph.nodes if node.op in ("call_function", "call_method", "call_module"))
        return gm.forward


def count_graphs(model, kwargs) -> dict:
    return count_graphs_with_output(model, kwargs)[0]


def count_graphs_with_output(model, kwargs, compiler=torch.compile) -> tuple[dict, object]:
    """`count_graphs` with `compiler(model, backend=counter)` (torch.compile,
    graphmend.compile), and the compiled call's output."""
    torch._dynamo.reset()
    counter = GraphCounter()
    compiled = compiler(model, backend=counter)
    with torch.no_grad(), BreakRecorder() as recorder:
        output = compiled(**kwargs)
    # Dynamo's own tally: one entry per distinct break message, with how often it was hit.
    tally = {_first_line(k): v for k, v in torch._dynamo.utils.counters["graph_break"].items()}
    counted = {
        "graphs": counter.graphs,
        "ops": counter.ops,
        "logged_breaks": recorder.breaks,
        "grouped": group_breaks(recorder.breaks),
        "dynamo_break_counter": tally,
    }
    return counted, output


def _first_line(text: str) -> str:
    return next((line.strip() for line in str(text).splitlines() if line.strip()), "")


def explain(model, kwargs) -> dict:
    torch._dynamo.reset()
    with torch.no_grad():
        result = torch._dynamo.explain(model)(**kwargs)
    breaks = [describe_break(reason) for reason in result.break_reasons]
    return {
        "graph_count": result.graph_count,
        "graph_break_count": result.graph_break_count,
        "op_count": result.op_count,
        "breaks": breaks,
        "grouped": group_breaks(breaks),
    }


def survey_model(name: str, seed: int) -> dict:
    spec = zoo.MODELS[name]
    record = {"model": name, "checkpoint": spec.checkpoint, "note": spec.note}
    started = time.perf_counter()
    try:
        model, kwargs = zoo.build(name, seed=seed)
        record.update(_describe_setup(model, kwargs))
        record["build_s"] = round(time.perf_counter() - started, 3)
        with torch.no_grad():
            model(**kwargs)
        record["eager_ok"] = True
    except Exception as error:  # a model that cannot build is a result, not a crash
        record.update(status="build_or_eager_failed", error=_error_text(error))
        return record
    for step, run in (("explain", explain), ("counting_backend", count_graphs)):
        step_started = time.perf_counter()
        try:
            record[step] = run(model, kwargs)
        except Exception as error:
            record[step] = {"error": _error_text(error)}
        record[step]["seconds"] = round(time.perf_counter() - step_started, 3)
    record["status"] = "ok" if all("error" not in record[s] for s in ("explain", "counting_backend")) else "error"
    record["total_s"] = round(time.perf_counter() - started, 3)
    return record


def _describe_setup(model, kwargs) -> dict:
    return {
        "class": type(model).__name__,
        "dtype": str(next(model.parameters()).dtype).replace("torch.", ""),
        "parameters": sum(p.numel() for p in model.parameters()),
        "attn_implementation": getattr(model.config, "_attn_implementation", None),
        "inputs": {k: _describe_value(v) for k, v in kwargs.items()},
    }


def _describe_value(value):
    if isinstance(value, torch.Tensor):
        return f"{str(value.dtype).replace('torch.', '')}{list(value.shape)}"
    return repr(value)


def _error_text(error: Exception) -> str:
    lines = traceback.format_exception_only(type(error), error)
    return "".join(lines).strip()[:2000]


def environment() -> dict:
    import transformers

    return {
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "transformers_path": os.path.dirname(transformers.__file__),
    }


def print_summary(records, stream):
    for record in records:
        if record.get("status") == "build_or_eager_failed":
            print(f"{record['model']:>15}: FAILED {record['error'].splitlines()[-1]}", file=stream)
            continue
        info = record["explain"]
        counted = record["counting_backend"]
        if "error" in info:
            print(f"{record['model']:>15}: explain FAILED {info['error'].splitlines()[-1]}", file=stream)
            continue
        print(
            f"{record['model']:>15}: graphs={info['graph_count']} breaks={info['graph_break_count']}"
            f" counted_graphs={counted.get('graphs')} ({record['total_s']}s)",
            file=stream,
        )
        for group in counted.get("grouped") or info["grouped"]:
            mode = "" if group.get("mode", "graph split") == "graph split" else f" [{group['mode']}]"
            print(f"{'':>17}{group['count']}x {group['where']}: {group['reason'][:100]}{mode}", file=stream)
            print(f"{'':>21}{group['code']}", file=stream)
            for caller in group.get("callers", []):
                print(f"{'':>21}called from {caller['where']}: {caller['code']}", file=stream)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", help="comma-separated names (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="write the JSON here (default: stdout)")
    args = parser.parse_args(argv)

    warnings.filterwarnings("ignore")
    torch.set_num_threads(min(2, torch.get_num_threads()))
    names = args.models.split(",") if args.models else list(zoo.MODELS)
    unknown = [n for n in names if n not in zoo.MODELS]
    if unknown:
        parser.error(f"unknown models {unknown}; known: {', '.join(zoo.MODELS)}")

    started = time.perf_counter()
    records = []
    for name in names:
        records.append(survey_model(name, args.seed))
        print_summary(records[-1:], sys.stderr)
    result = {"environment": environment(), "seconds": round(time.perf_counter() - started, 1), "models": records}
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
