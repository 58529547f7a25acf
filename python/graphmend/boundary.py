"""The compile boundary: what runs around every call of an object ``graphmend.compile``
returns, in eager Python outside the traced frame (a ``try``/``finally`` inside a traced
function would make Dynamo drop the whole frame): the deferred side effects are replayed
after the call, whether it returns or raises, and a failed trap raises the program's own
exception."""

from __future__ import annotations

import contextlib
import functools
import sys
from typing import Any, Callable, Dict, Optional

from . import mender

__all__ = ["behind_boundary", "boundary", "dynamo_config", "with_eager_precision"]


def boundary(
    call: Callable[..., Any], config: Optional[Dict[str, bool]] = None, entry: Any = None
) -> Callable[..., Any]:
    """``call`` behind the compile boundary: run (under the Dynamo ``config`` options
    runtime-aware mode chose), then replay the side effects deferred inside it; a trap's
    RuntimeError becomes the exception the original program raises. It runs on every call
    of a compiled object, so everything it needs is bound once, here. ``entry``: what
    ``call`` compiles (a function, or a module whose forward Dynamo compiles), when known:
    a warning whose stacklevel reaches past it names the caller of the boundary, and a
    failed ``runtime.rerun_if`` calls it again, eagerly (a module through its ``__call__``,
    as the compiled module calls it)."""
    runtime = mender._runtime()
    state = runtime.state  # the records, and the count of boundaries running a call
    pending, flush, translate = state.records, runtime.flush, runtime.translate

    def bounded(*args: Any, **kwargs: Any) -> Any:
        state.bounded += 1
        outermost = state.streams is None
        if outermost:  # the streams a call deferred inside a `with` must still see
            state.streams = (sys.stdout, sys.stderr)
        # Kept only once a rerun_if was traced: a rerun starts from the call's state.
        random = runtime.random_state() if state.rerun_guards else None
        try:
            if not config:
                return call(*args, **kwargs)
            with dynamo_config(config):
                return call(*args, **kwargs)
        except RuntimeError as exc:
            if entry is None or not runtime.is_rerun(exc):
                original = translate(exc)
                if original is None:
                    raise
                raise original from None
        finally:
            state.bounded -= 1
            if outermost:
                state.streams = None
            if pending:  # most calls defer nothing
                flush()
        # A rerun_if failed: the call again, eagerly, outside the handler (what it raises is
        # the original's exception, with no context of ours).
        return runtime.rerun(entry, random, args, kwargs)

    runtime.register_boundary(bounded.__code__, entry)
    return bounded


def behind_boundary(
    compiled: Any, config: Optional[Dict[str, bool]] = None, like: Any = None
) -> Any:
    """A ``torch.compile`` result behind the boundary: a compiled module keeps its identity
    and gets its ``forward`` wrapped; a compiled function becomes a wrapper that looks like
    ``like`` (the original function)."""
    import torch

    if isinstance(compiled, torch.nn.Module):
        entry = getattr(compiled, "_orig_mod", None)
        compiled.forward = functools.wraps(compiled.forward)(
            boundary(compiled.forward, config, entry)
        )
        return compiled
    bounded = boundary(compiled, config, getattr(compiled, "_torchdynamo_orig_callable", None))
    try:
        functools.update_wrapper(bounded, like if like is not None else compiled)
    except (AttributeError, TypeError):
        pass
    bounded.__graphmend_compiled__ = compiled
    return bounded


def dynamo_config(options: Optional[Dict[str, bool]]) -> Any:
    if not options:
        return contextlib.nullcontext()
    import torch._dynamo

    return torch._dynamo.config.patch(**options)


def with_eager_precision(torch_compile_kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """``torch.compile``'s arguments with Inductor rounding every intermediate to its dtype
    (``emulate_precision_casts``), unless the caller set that option or chose another
    backend. Mending fuses code that ran in separate graphs: a predicated condition then
    reads a float16 intermediate that Inductor keeps in float32, where eager (and the
    original's graph break) rounded it (an fp16 overflow guard saw ``inf`` eagerly and a
    finite value fused). ``mode`` becomes the options it stands for (``torch.compile``
    takes one or the other)."""
    kwargs = dict(torch_compile_kwargs)
    if kwargs.get("backend", "inductor") != "inductor":
        return kwargs
    options = dict(kwargs.get("options") or {})
    mode = kwargs.pop("mode", None)
    if mode not in (None, "default"):
        from torch._inductor import list_mode_options

        options = {**list_mode_options(mode, kwargs.get("dynamic")), **options}
    options.setdefault("emulate_precision_casts", True)
    kwargs["options"] = options
    return kwargs
