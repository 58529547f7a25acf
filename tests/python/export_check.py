"""Export checks shared by tests/python/test_export.py and bench/export_survey.py: a case or
peer program (tests/cases/README.md) exported with ``graphmend.export``, and its exported
program run against the original, eagerly, on every input of INPUTS."""

from __future__ import annotations

import contextlib
import io
import logging
import warnings

import torch

import graphmend
from graphmend import runtime
from graphmend.runtime_aware import _same_output
from behaviour import fresh_inputs, grad_mode
from case_files import build

# What ExportedProgram.module() raises for an input its guards do not admit (another shape).
_GUARD_TEXTS = ("to be equal to", "Guard failed", "Expected input", "exported input tree spec")


def export_case(module, strict):
    """``graphmend.export(..., report=True)`` of the program on INPUTS[0], quietly (what
    tracing prints, logs or warns is not the program's output)."""
    torch._dynamo.reset()
    with _quiet(), grad_mode(module):
        if hasattr(module, "reset"):
            module.reset()
        return graphmend.export(build(module), fresh_inputs(module, 0), strict=strict, report=True)


def outcome(call):
    """("return", value) or ("raise", class name, message); a trap's RuntimeError as the
    exception the original program raises (``runtime.translate``)."""
    try:
        return ("return", call())
    except Exception as exc:  # noqa: BLE001 (compared with the other run's)
        exc = runtime.translate(exc) or exc
        return ("raise", type(exc).__name__, str(exc))


def same_outcome(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "raise":
        return a[1:] == b[1:]
    return _same_output(a[1], b[1])


def compare(module, program):
    """Per input of INPUTS: True when the exported program returns (or raises) what the
    original returns eagerly, False when not, None when export's guards do not admit the
    input (another shape)."""
    results = []
    for index in range(len(module.INPUTS)):
        with _quiet(), grad_mode(module):
            if hasattr(module, "reset"):
                module.reset()
            expected = outcome(lambda: build(module)(*fresh_inputs(module, index)))
            got = outcome(lambda: program.module()(*fresh_inputs(module, index)))
        if got[0] == "raise" and any(text in got[2] for text in _GUARD_TEXTS):
            results.append(None)
            continue
        results.append(same_outcome(expected, got))
    return results


@contextlib.contextmanager
def _quiet():
    level = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.disable(level)
