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


# What an exported program raises for an input it was not exported for, which its
# signature above does not show (a value pytree takes for a leaf, a shape export guards).
_REFUSALS = ("exported input tree spec", "Guard failed")


def signature(inputs):
    """What an exported program is specialised on (no dynamic shapes): each tensor's shape,
    dtype and device, every other value itself, and the structure around them."""
    leaves, spec = torch.utils._pytree.tree_flatten(inputs)
    return str(spec), [
        (tuple(v.shape), v.dtype, v.device) if isinstance(v, torch.Tensor) else (type(v), v)
        for v in leaves
    ]


def compare(module, program):
    """Per input of INPUTS: True when the exported program returns (or raises) what the
    original returns eagerly, False when not, None when the input is not one the program
    was exported for (another shape, dtype or constant than INPUTS[0]'s)."""
    results = []
    exported_for = signature(module.INPUTS[0])
    for index in range(len(module.INPUTS)):
        if signature(module.INPUTS[index]) != exported_for:
            results.append(None)
            continue
        with _quiet(), grad_mode(module):
            expected = outcome(lambda: _fresh(module)(*fresh_inputs(module, index)))
            exported = program.module()
            _fresh(module)  # the same random state for both runs
            got = outcome(lambda: exported(*fresh_inputs(module, index)))
        refused = got[0] == "raise" and any(text in got[2] for text in _REFUSALS)
        results.append(None if refused else same_outcome(expected, got))
    return results


def _fresh(module):
    """The object under test, after the case's ``reset()`` (its seed, its caches)."""
    if hasattr(module, "reset"):
        module.reset()
    return build(module)


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
