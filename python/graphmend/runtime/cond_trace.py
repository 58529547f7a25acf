"""Dynamo's trace as the check of a torch.cond site ([Cond]).

``torch.cond`` fails the whole compile (``UncapturedHigherOrderOpError``) where a branch
cannot be traced (a print, an ``.item()``, an in-place op on an operand, a data-dependent
shape, a graph break in a helper), where the original ``if`` only breaks the graph. Every
mended torch.cond site is behind ``cond_on``, a constant of the trace: a site found
untraceable is switched off, and Dynamo converts the frame again, which then takes the
site's original statement. A failed trace runs no user code (its effects are symbolic), so
the call still runs the program once.

The retry lives in Dynamo's frame conversion (``conversion.py``).
"""

from __future__ import annotations

import re
import sys

from . import state
from .tracing import _asked_while_tracing, in_runtime, is_compiling, is_exporting, mended_tx

_BRANCH = re.compile(r"__gm_(?:true|false)_\d+$")


def cond_on(true_name: str, false_name: str) -> bool:
    """Whether the torch.cond site whose branch functions are ``true_name`` and
    ``false_name`` may be traced: while compiling, unless Dynamo failed to trace it before.
    Not compiling it is False: the original statement runs. Resolved while tracing (no
    graph break, nothing in the graph)."""
    return is_compiling() and _site_on(true_name, false_name)


@_asked_while_tracing
def _site_on(true_name: str, false_name: str) -> bool:
    if not state.conversion_retries:
        return False  # no retry: a failed trace would fail the compile
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        tx = mended_tx(InstructionTranslator.current_tx())
    except Exception:  # noqa: BLE001 (no translator: Dynamo is not tracing)
        # A non-strict export runs the program on fake tensors, with no Dynamo frame to
        # convert again: the cond is taken, and where it cannot be captured the export
        # fails, as it fails on the original's data-dependent if.
        return is_exporting()
    if tx is None:
        return False
    code = tx.f_code
    site = (code.co_filename, code.co_name, true_name)
    if site in state.untraceable_conds:
        return False
    state.traced_conds.append(site + (false_name,))
    del state.traced_conds[:-64]
    return True


def switch_off(error: BaseException) -> bool:
    """Records the site of a torch.cond that Dynamo failed to trace (``error``): the
    innermost branch function on the error's user stack, or, where the error names none
    (an output that aliases an operand is found after the branches are traced), the site
    let through last. True when a site was switched off (the frame may be converted
    again), False when ``error`` is not about a mended site."""
    stack = list(getattr(error, "real_stack", None) or ())
    at_cond = any(in_runtime(f.filename) and f.name == "cond" for f in stack)
    # a branch Dynamo cannot capture, or any other failure of the trace at a mended
    # torch.cond (branches whose outputs differ in dtype or shape, an op failing on fake
    # tensors): the original statement raises only where the original program does
    if type(error).__name__ != "UncapturedHigherOrderOpError" and not at_cond:
        return False
    site = _site_on_stack(stack)
    if site is None and at_cond:
        site = _last_traced()  # raised by runtime.cond's torch.cond, after its branches
    if site is None or site in state.untraceable_conds:
        return False
    state.untraceable_conds.add(site)
    return True


def _site_on_stack(frames) -> "tuple | None":
    for i in range(len(frames) - 1, -1, -1):
        if not _BRANCH.match(frames[i].name):
            continue
        enclosing = _caller_outside_torch(frames[:i])
        if enclosing is None:
            continue
        for site in reversed(state.traced_conds):
            same_place = site[0] == frames[i].filename and site[1] == enclosing.name
            if same_place and frames[i].name in site[2:]:
                return site[:3]
    return None


def _caller_outside_torch(frames):
    """The frame that called runtime.cond: the last one that is neither the runtime's nor
    torch's."""
    torch = sys.modules["torch"]
    torch_dir = torch.__file__.rsplit("/", 1)[0]
    for frame in reversed(frames):
        if not in_runtime(frame.filename) and not frame.filename.startswith(torch_dir):
            return frame
    return None


def _last_traced() -> "tuple | None":
    for site in reversed(state.traced_conds):
        if site[:3] not in state.untraceable_conds:
            return site[:3]
    return None
