"""``graphmend explain FILE:ENTRY``: Dynamo's breaks of one call before and after mending,
each with Dynamo's graph-break id (GBxxxx) and GraphMend's code. ENTRY names a
zero-argument callable returning ``(obj, args)`` or ``(obj, args, kwargs)``."""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import importlib.util
import json
import os
import sys
from typing import Any, Dict, Tuple

from ..files import UserError
from ..files import display_path
from ..reports import GENERIC_JUMP, GENERIC_JUMP_ID

__all__ = ["explain", "gb_id_of", "load_target"]

_GB_URL = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb{}.html"


@functools.lru_cache(maxsize=1)
def _gb_registry() -> Dict[str, str]:
    """Dynamo's graph-break types -> ids, read from the installed torch's registry file
    (empty for a torch without one)."""
    spec = importlib.util.find_spec("torch")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, "_dynamo", "graph_break_registry.json")
        try:
            with open(path, encoding="utf-8") as handle:
                registry = json.load(handle)
        except (OSError, ValueError):
            continue
        return {entry["Gb_type"]: gb_id for gb_id, entries in registry.items() for entry in entries}
    return {}


def gb_id_of(reason: str) -> str:
    """The GB id of a break from the first line of Dynamo's reason ("" when unknown)."""
    if reason.startswith(GENERIC_JUMP):
        return GENERIC_JUMP_ID
    return _gb_registry().get(reason.strip(), "")


def load_target(target: str) -> Tuple[Any, tuple, dict]:
    """(obj, args, kwargs) from ``path.py:ENTRY`` or ``package.module:ENTRY``."""
    where, _, entry = target.rpartition(":")
    if not where or not entry:
        raise UserError("the target must be FILE.py:ENTRY or module:ENTRY", target)
    if where.endswith(".py"):
        if not os.path.isfile(where):
            raise UserError("no such file", where)
        folder = os.path.dirname(os.path.abspath(where))
        sys.path.insert(0, folder)
        name = os.path.splitext(os.path.basename(where))[0]
        spec = importlib.util.spec_from_file_location(name, where)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    function = getattr(module, entry, None)
    if not callable(function):
        raise UserError(f"{entry!r} is not a callable of the module", where)
    made = function()
    if not isinstance(made, tuple) or len(made) not in (2, 3):
        raise UserError(f"{entry}() must return (obj, args) or (obj, args, kwargs)", where)
    obj, args, *rest = made
    return obj, tuple(args), dict(rest[0]) if rest else {}


def _break_json(info) -> Dict[str, Any]:
    gb_id = gb_id_of(info.reason)
    note = _runtime_note(info) if info.runtime_frame else ""
    return {
        "path": display_path(info.filename) if info.filename else "",
        "line": info.line,
        "gb_id": gb_id or None,
        "gb_url": _GB_URL.format(gb_id[2:]) if gb_id else None,
        "gb_type": info.reason,
        "reason": info.reason,
        "code": info.code or None,
        "status": None if info.fixed is None else ("fixed" if info.fixed else "declined"),
        "message": info.message or None,
        "runtime_note": note or None,
        "dynamo_option": _dynamo_option(info.code) or None,
    }


# What Dynamo itself offers for a side-effect break, by GraphMend code: the config set and
# the function to add, and what it changes. Shown only when the installed torch has the set.
_DYNAMO_OPTIONS = {
    "GM102": (
        "reorderable_logging_functions",
        "print",
        "keeps it in the graph, printing its arguments as they are at the end of the graph "
        "(GraphMend's fix prints them as they were at the call)",
    ),
    "GM104": (
        "reorderable_logging_functions",
        "warnings.warn",
        "keeps it in the graph, warning at the end of the graph with another line named "
        "(GraphMend's fix replays it with the call's file and line)",
    ),
    "GM103": (
        "ignore_logging_functions",
        "logging.Logger.<method>",
        "keeps it in the graph by dropping the record in compiled code "
        "(GraphMend's fix replays it)",
    ),
}


def _dynamo_option(code: str) -> str:
    """Dynamo's own way out of a GM102-GM104 break, where the installed torch has it."""
    option = _DYNAMO_OPTIONS.get(code or "")
    if option is None:
        return ""
    import torch._dynamo

    name, function, effect = option
    if not isinstance(getattr(torch._dynamo.config, name, None), set):
        return ""
    return f"Dynamo can also handle it: torch._dynamo.config.{name}.add({function}) {effect}"


def _runtime_note(info) -> str:
    if info.runtime_frame in ("guard", "check_assert", "_check"):
        return (
            f"{info.code or 'GM105'} fixed, but the trap ran eagerly because deferred records were "
            "pending (a print or log earlier in the same compiled region); move that call after "
            "the guard or accept one break"
        )
    if info.runtime_frame in ("_replay_in_order", "defer", "defer_format"):
        return (
            "a deferred print/log call whose arguments cannot be recorded (an object that "
            "formats through its own code) runs at once, after the records before it; it "
            "breaks where the original did"
        )
    if info.runtime_frame == "call_now":
        return (
            "a declined print/log call runs through graphmend.runtime.call_now to keep the "
            "order of output; it breaks where the original did"
        )
    return f"the break is inside GraphMend's runtime ({info.runtime_frame})"


def _measure(obj, args, kwargs, grad: bool):
    """Dynamo's evidence of one call of ``obj`` (``evidence.record``: its graphs, and its
    breaks, those of frames it skipped after a break in a loop included)."""
    import torch

    from ..evidence import record

    torch.manual_seed(0)
    context = torch.enable_grad() if grad else torch.no_grad()
    # The model's own output goes to stderr: stdout carries the report (JSON included).
    with context, contextlib.redirect_stdout(sys.stderr):
        return record(obj, *args, **kwargs)[1]


def _phase(options, text: str) -> None:
    if not options.quiet:
        sys.stderr.write(f"graphmend explain: {text}\n")
        sys.stderr.flush()


def explain(options: argparse.Namespace, settings) -> int:
    target = options.target or settings.explain_entry
    if not target:
        raise UserError("name a target FILE.py:ENTRY (or set [tool.graphmend.explain] entry)")
    max_breaks = (
        options.max_breaks if options.max_breaks is not None else settings.explain_max_breaks
    )
    _phase(options, f"importing {target}")
    try:
        obj, args, kwargs = load_target(target)
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 (the user's module or entry failed)
        raise UserError(
            f"importing or calling the entry failed: {type(exc).__name__}: {exc}", target
        ) from None
    if options.export:
        return _explain_export(options, target, obj, args, kwargs)
    from .. import evidence
    from ..mender import mend

    _phase(options, "running Dynamo on the original (before)")
    seen = _measure(obj, args, kwargs, options.grad)
    before, after = seen.report(), None
    observed = seen.jump_lines()
    if not options.no_mend:
        # Mended as graphmend.compile mends on its first call: from the text, and where
        # Dynamo broke on a branch (an operand it saw as a tensor), from that evidence.
        _phase(options, "mending with Dynamo's evidence, then running Dynamo again (after)")
        mended, mend_rep = evidence.mend_with(obj, observed) if observed else (mend(obj), None)
        if mend_rep is not None:
            before.breaks = evidence.tag_from(before.breaks, mend_rep)
        after = _measure(mended, args, kwargs, options.grad).report()
    result = {
        "before": {"graphs": before.graph_count, "breaks": [_break_json(b) for b in before.breaks]},
        "after": None
        if after is None
        else {"graphs": after.graph_count, "breaks": [_break_json(b) for b in after.breaks]},
    }
    if options.backend:
        _phase(options, f"running the original eagerly, then compiled with {options.backend}")
        result["backend"] = _backend_check(obj, args, kwargs, options)
    _print(options, target, result)
    remaining = len((after or before).breaks)
    same = result.get("backend", {}).get("same", True)
    return 0 if remaining <= max_breaks and same else 1


def _backend_check(obj, args, kwargs, options) -> Dict[str, Any]:
    """The original run eagerly against ``graphmend.compile(obj, backend=...)`` (plain
    ``torch.compile`` with ``--no-mend``) on the entry's inputs, each run from the same seed
    and buffers: whether they return (or raise) the same."""
    import torch

    from .. import runtime_aware
    from ..compiling import compile as graphmend_compile

    context = torch.enable_grad() if options.grad else torch.no_grad()
    compiler = torch.compile if options.no_mend else graphmend_compile
    with (
        runtime_aware._Profiler(obj, args, kwargs) as profiler,
        context,
        contextlib.redirect_stdout(sys.stderr),
    ):
        expected = _outcome(profiler.eager)
        try:
            compiled = compiler(obj, backend=options.backend)
        except Exception as exc:  # noqa: BLE001 (an unknown backend, say: reported, exit 1)
            return {"name": options.backend, "same": False, "error": _exception_text(exc)}
        got = _outcome(lambda: profiler.call(compiled))
    if got[0] == "raise" or expected[0] == "raise":
        same = got == expected
    else:
        same = runtime_aware._same_output(got[1], expected[1], compiled=True)
    error = got[1] if got[0] == "raise" else None
    return {"name": options.backend, "same": bool(same), "error": error}


def _outcome(call) -> Tuple[str, Any]:
    try:
        return "return", call()
    except Exception as exc:  # noqa: BLE001 (compared with the other run's exception)
        return "raise", _exception_text(exc)


def _exception_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _write_json(options, target: str, **fields: Any) -> None:
    """The JSON report of ``explain`` on stdout, with ``fields`` beside the common ones."""
    from . import formats

    report = formats.json_report(
        "explain",
        [],
        {"checked": 0, "changed": 0, "errors": 0},
        target=target,
        grad=bool(options.grad),
        **fields,
    )
    json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def _print(options, target: str, result: Dict[str, Any]) -> None:
    if options.output_format == "json":
        _write_json(options, target, **result)
        return
    mode = "grad enabled" if options.grad else "under torch.no_grad()"
    header = [
        f"before: {len(result['before']['breaks'])} breaks in {result['before']['graphs']} graphs"
    ]
    if result["after"] is not None:
        header.append(
            f"after: {len(result['after']['breaks'])} breaks in {result['after']['graphs']} graphs"
        )
    print("    ".join(header) + f"    ({mode})")
    checked = result.get("backend")
    if checked is not None:
        verdict = (
            "the same as the original eagerly"
            if checked["same"]
            else "NOT the same as the original eagerly"
        )
        raised = f" (raised {checked['error']})" if checked["error"] else ""
        print(f"compiled with {checked['name']}: {verdict}{raised}")
    for phase in ("before", "after"):
        if result[phase] is None:
            continue
        print(f"{phase}:")
        for b in result[phase]["breaks"]:
            print("  " + _break_line(b))
            if b["runtime_note"]:
                print(f"      note: {b['runtime_note']}")
            if b["dynamo_option"]:
                print(f"      also: {b['dynamo_option']}")
            if b["gb_url"]:
                print(f"      docs: {b['gb_url']}")


def _break_line(b: Dict[str, Any]) -> str:
    where = f"{b['path']}:{b['line']}"
    gb = b["gb_id"] or "GB????"
    reason = b["reason"] if len(b["reason"]) <= 48 else b["reason"][:47] + "…"
    tag = "not a GraphMend site"
    if b["code"]:
        tag = f"{b['code']} {b['status']}"
        if b["status"] == "declined" and b["message"] and "; not rewritten: " in b["message"]:
            tag += ": " + b["message"].split("; not rewritten: ", 1)[1]
    return f"{where:24s} {gb} {reason:48s} {tag}"


def _explain_export(options, target: str, obj, args: tuple, kwargs: dict) -> int:
    """``--export``: ``graphmend.export`` of the entry's model in each mode asked; exit 1
    when one is still blocked after mending."""
    modes = {"both": (False, True), "strict": (True,), "non-strict": (False,)}[options.export]
    results = [_export_json(options, obj, args, kwargs, strict) for strict in modes]
    if options.output_format == "json":
        _write_json(options, target, export=results)
    else:
        for result in results:
            print(result["text"])
    return 0 if all(r["exported"] for r in results) else 1


def _export_json(options, obj, args: tuple, kwargs: dict, strict: bool) -> Dict[str, Any]:
    import warnings

    import torch

    from ..exporting import export

    mode = "strict" if strict else "non-strict"
    _phase(options, f"exporting ({mode}) the original, then the mended program")
    context = torch.enable_grad() if options.grad else torch.no_grad()
    with context, contextlib.redirect_stdout(sys.stderr), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the report lists what the warning would
        _, report = export(obj, args, kwargs, strict=strict, report=True)
    return {
        "mode": mode,
        "original_exported": report.original_exported,
        "original_reason": report.original_reason or None,
        "exported": report.exported,
        "reason": report.reason or None,
        "mended": [_site_json(d) for d in report.mended],
        "declined": [_site_json(d) for d in report.declined],
        "dropped": report.dropped,
        "traps": report.traps,
        "text": str(report),
    }


def _site_json(d) -> Dict[str, Any]:
    return {
        "path": display_path(d.filename) if d.filename else "",
        "line": d.line,
        "code": d.code,
        "message": d.message,
    }
