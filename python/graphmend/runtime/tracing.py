"""What every part of the runtime asks: whether Dynamo is tracing, and what a value is.

``_asked_while_tracing`` marks a function Dynamo calls while tracing instead of tracing it;
``_disabled`` one it never traces (a graph break there). The frame filters (``in_runtime``)
test the runtime's folder: mended code's frames are the ones outside it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

_FOLDER = os.path.dirname(__file__)  # as code objects name their files


def in_runtime(filename: str) -> bool:
    """Whether ``filename`` is a file of this runtime (a frame of ours, not mended code's)."""
    return os.path.dirname(filename) == _FOLDER


def _inline_when_called() -> None:
    """Has Dynamo treat the runtime as it treats the ``copy`` module: inlined into the frames
    it traces (every helper mended code calls), but run as written where a helper's frame is
    a top-level one, called from code Dynamo runs eagerly (a frame it skipped after a break
    in a loop). Otherwise Dynamo compiles such a call into a graph of its own (a `clone` of a
    recorded argument): more graphs than the original had."""
    try:
        import torch._dynamo.trace_rules as rules
    except ImportError:  # pragma: no cover - the runtime without torch runs eagerly only
        return
    inline = getattr(rules, "BUILTIN_INLINE_WHEN_CALLED", None)
    if not isinstance(inline, set) or not hasattr(rules, "SKIP_DIRS"):
        return
    folder = rules._as_posix_path(_FOLDER + os.sep)
    if folder not in inline:
        inline.add(folder)
        rules.SKIP_DIRS.append(folder)
        rules._recompile_re()


def mended_tx(tx):
    """The innermost of Dynamo's inlining translators (``tx`` and its parents) that is not
    tracing the runtime itself: the mended function calling a runtime helper, or None."""
    while tx is not None and in_runtime(tx.f_code.co_filename):
        tx = tx.parent
    return tx


def is_compiling() -> bool:
    """True while TorchDynamo traces the caller (``torch.compiler.is_compiling()``).

    Dynamo evaluates this to a constant True when tracing; False in eager code. Returns
    False when torch is not importable.
    """
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    compiler = getattr(torch, "compiler", None)
    if compiler is None or not hasattr(compiler, "is_compiling"):
        return False
    return compiler.is_compiling()


def is_exporting() -> bool:
    """True while ``torch.export`` traces the caller, strict or not
    (``torch.compiler.is_exporting()``); False without torch."""
    torch = sys.modules.get("torch")
    compiler = getattr(torch, "compiler", None) if torch is not None else None
    if compiler is None or not hasattr(compiler, "is_exporting"):
        return False
    return compiler.is_exporting()


def _asked_while_tracing(fn):
    """``fn`` for Dynamo to call while tracing (``assume_constant_result``): its answer is a
    constant of the graph, and nothing of it is in the graph. ``fn`` itself without torch."""
    try:
        import torch.compiler
    except ImportError:  # pragma: no cover - the runtime without torch runs eagerly only
        return fn
    return torch.compiler.assume_constant_result(fn)


def _is_tensor(value: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _one_element(value: Any) -> bool:
    """Whether ``value`` is a tensor with a single element (what ``bool()`` and ``.item()``
    accept)."""
    return _is_tensor(value) and value.numel() == 1


def _plain_tensor(value: Any) -> bool:
    """Whether ``value``'s type is exactly ``torch.Tensor`` or ``torch.nn.Parameter`` (not a
    subclass, which may bring its own ``__torch_function__``); under non-strict
    ``torch.export``, the fake tensor that stands for one."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    kind = type(value)
    if kind is torch.Tensor or kind is torch.nn.Parameter:
        return True
    return _exported_plain_tensor(kind, torch)


def _exported_plain_tensor(kind: type, torch: Any) -> bool:
    """Whether ``kind`` is what non-strict ``torch.export`` runs the program on in place of a
    plain tensor or parameter: its fake tensor (a subclass keeps its own class there)."""
    if not torch.compiler.is_exporting():
        return False
    fake = sys.modules.get("torch._subclasses.fake_tensor")
    return fake is not None and kind is fake.FakeTensor


def _disabled(fn):
    try:
        import torch
    except ImportError:
        return fn
    return torch.compiler.disable(fn, recursive=True)
