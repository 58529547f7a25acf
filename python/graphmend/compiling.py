"""``graphmend.compile``: ``torch.compile`` of the mended object behind the compile
boundary (``graphmend.boundary``); with example inputs, runtime-aware
(``graphmend.runtime_aware``)."""

from __future__ import annotations

import types
from typing import Any, Dict, Optional

from . import boundary, mender, runtime_aware
from . import evidence as _evidence
from .options import all_on as all_rewrites
from .reports import MendReport

__all__ = ["compile"]


def compile(  # noqa: A001 (graphmend.compile)
    obj: Any,
    *,
    example_inputs: Any = None,
    example_kwargs: Optional[Dict[str, Any]] = None,
    capture: Any = "auto",
    evidence: bool = True,
    **torch_compile_kwargs: Any,
) -> Any:
    """``torch.compile(graphmend.mend(obj), **torch_compile_kwargs)`` with the runtime
    boundary: after each call (return or raise) the deferred prints, log records and warnings
    are replayed in order, and a failed trap raises the original exception.

    A function or method gives a function; a module instance gives the ``OptimizedModule``
    ``torch.compile`` returns (its ``forward`` runs the boundary, outside the traced frame).
    When mending rebuilds nothing (everything ``obj`` reaches was mended at import, or has
    nothing to rewrite), ``obj`` itself is compiled rather than an identical copy.

    Without example inputs, the first call is also the evidence run (``evidence=True``, the
    default): the program mended from its text runs once, compiled with the caller's backend
    wrapped to record Dynamo's breaks (file, line, reason; frames it skipped after a break in
    a loop count). Where Dynamo broke on a branch no site of the text covers (an operand it
    saw as a tensor, with no sign of it in the text), ``obj`` is mended again with those
    lines (``observed_lines``) and the later calls run that, compiled afresh; otherwise the
    first call's compiled code serves every call (no recompile). ``compile_report`` says
    which sites came from the text and which from the evidence. ``evidence=False``: the
    static mend alone.

    With ``example_inputs`` (a tuple of positional arguments, or one tensor) and/or
    ``example_kwargs``, the mode is runtime-aware: ``obj`` is run once under
    ``torch._dynamo.explain`` and only the sites Dynamo broke on are mended; when breaks
    remain that no rewrite fixes and ``capture`` is ``"auto"`` (or True), the Dynamo options
    they call for (``capture_scalar_outputs`` for Python scalars,
    ``capture_dynamic_output_shape_ops`` for data-dependent output shapes,
    ``nested_graph_breaks`` for breaks below the compiled frame) are tried and the fewest
    that remove breaks and keep the outputs are kept, for this compile's calls only;
    enabling any warns ``CaptureOptionsEnabled``. ``capture=False`` never enables
    them. ``compile_report(compiled)`` returns the ``CompileReport``.
    """
    import torch

    if isinstance(obj, type):
        raise TypeError(
            "graphmend.compile takes a function, a method or a module instance; "
            "for a class, compile an instance of graphmend.mend(cls)"
        )
    if capture not in ("auto", True, False):
        raise ValueError(f"capture must be 'auto', True or False, not {capture!r}")
    if evidence not in (True, False):
        raise ValueError(f"evidence must be True or False, not {evidence!r}")
    if example_inputs is None and example_kwargs is None:
        target, mend_rep = mender._mend_for_compile(obj, all_rewrites())
        if evidence:
            compiled = _evidence.compile_with_evidence(obj, target, mend_rep, torch_compile_kwargs)
            if compiled is not None:
                return compiled
        return _compiled(obj, target, mend_rep, None, torch_compile_kwargs)
    if isinstance(example_inputs, torch.Tensor) or not isinstance(example_inputs, (tuple, list)):
        example_inputs = () if example_inputs is None else (example_inputs,)
    mended, report, trial = runtime_aware._runtime_aware(
        obj, tuple(example_inputs), dict(example_kwargs or {}), capture, torch_compile_kwargs
    )
    compiled = _compiled(
        obj, mended, report.mend, report.capture_options, torch_compile_kwargs, trial
    )
    runtime_aware._attach_compile_report(compiled, report)
    runtime_aware._announce(report)
    return compiled


def _compiled(
    obj: Any,
    mended: Any,
    mend_rep: MendReport,
    config: Optional[Dict[str, bool]],
    torch_compile_kwargs: Dict[str, Any],
    compiled: Any = None,
) -> Any:
    """``torch.compile`` of ``mended`` behind the compile boundary (``compiled``: that
    ``torch.compile`` result, when runtime-aware mode already made and ran it)."""
    import torch

    if compiled is None:
        compiled = torch.compile(mended, **boundary.with_eager_precision(torch_compile_kwargs))
    target = obj.__func__ if isinstance(obj, types.MethodType) else obj
    bounded = boundary.behind_boundary(compiled, config, like=target)
    if bounded is compiled:  # a module: its forward is wrapped
        mender._attach_report(compiled, mend_rep)
        return compiled
    bounded.__graphmend_report__ = mend_rep
    return bounded
