"""Runtime support for mended code.

Mended source imports this module once, as ``import graphmend.runtime as __graphmend_rt__``
(inserted after the module docstring and ``from __future__`` imports), and calls the
helpers below where the mender rewrote a graph break:

* ``defer`` / ``defer_format`` ([Defer]) replace ``print``, ``logger.<level>`` and
  ``warnings.warn`` calls. Outside compilation they call the callee at once (eager behaviour
  is exactly the original's). While TorchDynamo traces, they append a record to a list
  instead, with tensors snapshotted, so the traced region has no side effect and no break.
* ``flush`` replays the records in order. **The compile boundary must call it** after the
  compiled callable returns *or raises*, from eager code (a ``try``/``finally`` around the
  call, never inside the traced function: a ``try``/``finally`` there makes Dynamo drop the
  whole frame)::

      try:
          out = compiled(*args, **kwargs)
      except RuntimeError as exc:
          original = runtime.translate(exc)
          if original is None:
              raise
          raise original from None
      finally:
          runtime.flush()

* ``guard`` ([Trap]) replaces ``if <tensor cond>: raise E("msg")``. Outside compilation it
  raises ``E("msg")`` when ``bool(cond)`` is true (exactly the original). While compiling it
  emits ``torch._assert_async`` with a token that names ``E`` and ``"msg"``; ``translate``
  turns the resulting ``RuntimeError`` back into ``E("msg")`` at the boundary.
* ``check_assert`` ([Trap]) replaces the condition of a tensor ``assert`` the same way, so
  a failing assert in compiled code raises ``AssertionError`` as it does eagerly.
* ``call_now`` routes a print the mender could not defer: it replays the pending records
  first, then prints (a graph break, as the original), so the output keeps its order.
* ``where_ok`` / ``cond`` ([Where]) select between ``torch.where`` / ``torch.cond`` and the
  original branch.

The only state is the module-global record list (``pending()`` shows it, ``discard()``
drops it). Dynamo applies a traced region's appends only when its graph completes: records
of the graphs that ran before a failure are replayed by the boundary's ``flush`` before the
exception propagates, as the original printed them before raising; a ``guard`` that has
records pending in its own region is recorded after them behind a boundary (``flush`` then
raises in order), and keeps its Python branch (one graph break) without one, so they are
not lost.

Known limits: the record list is shared by all threads (concurrent compiled calls may
interleave their output); a warning turned into an error by a warnings filter raises at
``flush`` instead of at the call.

Nothing here modifies user objects: records hold clones of tensors and shallow copies of
lists, tuples and dicts; replay calls the recorded callee with those.
"""

from __future__ import annotations

import builtins
import importlib
import logging
import math
import numbers
import operator
import re
import sys
import types
import warnings
import weakref
from typing import Any, Callable, List, Optional, Tuple

from ._core import RUNTIME_NAME as _RUNTIME_NAME

__all__ = [
    "defer",
    "defer_format",
    "defer_branch",
    "defer_when",
    "defer_format_when",
    "push_condition",
    "pop_condition",
    "contains",
    "not_contains",
    "call_now",
    "flush",
    "discard",
    "pending",
    "guard",
    "guard_formatted",
    "rerun_if",
    "check_assert",
    "check_tensor_all",
    "translate",
    "where_ok",
    "cond_ok",
    "masked_fill_ok",
    "masked_index_ok",
    "item_compare",
    "tensors",
    "cond_safe",
    "cond",
    "is_compiling",
    "TRAP_TOKEN_PREFIX",
]

# One record: (site, callee, args, kwargs, formats). site = (filename, lineno, funcname) of
# the original call; formats = ((key, template), ...) for defer_format, else ().
Record = Tuple[Tuple[str, int, str], Callable[..., Any], tuple, dict, tuple]

_records: List[Record] = []
# How many compile boundaries (boundary.py) are running a call: behind one, a guard may be
# recorded after pending records instead of breaking the graph (see ``guard``).
_bounded = 0


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


def _asked_while_tracing(fn):
    """``fn`` for Dynamo to call while tracing (``assume_constant_result``): its answer is a
    constant of the graph, and nothing of it is in the graph. ``fn`` itself without torch."""
    try:
        import torch.compiler
    except ImportError:  # pragma: no cover - the runtime without torch runs eagerly only
        return fn
    return torch.compiler.assume_constant_result(fn)


# ---------------------------------------------------------------------------------------------
# Snapshots.

_PLAIN_TYPES = (type(None), bool, int, float, complex, str, bytes)


def _is_tensor(value: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _one_element(value: Any) -> bool:
    """Whether ``value`` is a tensor with a single element (what ``bool()`` and ``.item()``
    accept)."""
    return _is_tensor(value) and value.numel() == 1


def _plain_tensor(value: Any) -> bool:
    """Whether ``value``'s type is exactly ``torch.Tensor`` or ``torch.nn.Parameter`` (not a
    subclass, which may bring its own ``__torch_function__``)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    kind = type(value)
    return kind is torch.Tensor or kind is torch.nn.Parameter


def _snapshot_safe(value: Any) -> bool:
    """Whether ``value`` can be recorded now and formatted later with the same text.

    True for tensors (cloned), plain immutable scalars and strings, classes (a warning
    category), torch dtypes, devices, sizes, and lists/tuples/dicts of such values (copied). Anything else (a user object
    whose ``__str__`` may read mutable state, a file, a module) is not.
    """
    if type(value) in _PLAIN_TYPES or isinstance(value, type):
        return True
    if _is_tensor(value):
        return True
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, (torch.dtype, torch.device, torch.Size)):
        return True
    if type(value) in (list, tuple):
        return all(_snapshot_safe(item) for item in value)
    if type(value) is dict:
        return all(_snapshot_safe(k) and _snapshot_safe(v) for k, v in value.items())
    return False


def _recordable(args: tuple, kwargs: dict) -> bool:
    # print's file= is a stream written to at replay, not formatted.
    return _snapshot_safe(args) and all(
        key == "file" or _snapshot_safe(value) for key, value in kwargs.items()
    )


def _snapshot(value: Any) -> Any:
    """A copy of ``value`` that later in-place changes cannot alter: tensors are cloned
    (``Tensor.clone``; parameters are kept, they are not changed inside a forward), lists,
    tuples and dicts are copied recursively, anything else is kept as it is."""
    if _is_tensor(value):
        torch = sys.modules["torch"]
        if isinstance(value, torch.nn.Parameter):
            return value
        return value.clone()
    if type(value) is list:
        return [_snapshot(item) for item in value]
    if type(value) is tuple:
        return tuple(_snapshot(item) for item in value)
    if type(value) is dict:
        return {key: _snapshot(item) for key, item in value.items()}
    return value


# ---------------------------------------------------------------------------------------------
# [Defer].


def defer(site, callee, /, *args, **kwargs):
    """Calls ``callee(*args, **kwargs)`` now, or records it for ``flush`` while compiling.

    Returns None (the rewrite only applies to calls whose result is unused). ``site`` is the constant ``(filename, lineno, funcname)`` of the original call; replayed
    logging records and warnings carry it as their pathname/lineno/funcName (filename and
    lineno for warnings), as the original call would have.

    While compiling, a record is made only when every argument is snapshot-safe (see
    ``_snapshot_safe``); otherwise the callee is called at once, which is exactly the
    original behaviour (Dynamo then breaks the graph there, as it did before).
    """
    _defer(site, callee, (), args, kwargs)


def defer_format(site, callee, formats, /, *args, **kwargs):
    """Like ``defer``, for calls with f-string arguments.

    ``formats`` is a constant tuple of ``(key, template)`` pairs: ``key`` is the index of a
    positional argument or the name of a keyword argument whose value, in ``args`` or
    ``kwargs``, is the tuple of the f-string's field values; ``template`` is the f-string
    as a ``str.format`` template over those values (``f"a {x!r:>5} b"`` is
    ``"a {0!r:>5} b"``, literal braces doubled, ``{x=}`` is ``"x={0!r}"``). The argument is
    ``template.format(*values)``: at once when not compiling, at replay (on snapshots of the
    values) while compiling. A third element, a tuple of indexes, names the values the
    original converted with ``.item()`` (``f"{loss.item():.4f}"``): they are recorded as
    tensors and converted when formatted, so no ``.item()`` runs in the traced region. ``print(f"loss {loss:.3f}", end="")`` becomes
    ``defer_format(site, print, ((0, "loss {0:.3f}"),), (loss,), end="")``.
    """
    _defer(site, callee, formats, args, kwargs)


def _defer(site, callee, formats, args, kwargs):
    if not is_compiling():
        flush()  # records of compiled code earlier in this call come first
        args, kwargs = _apply_formats(formats, args, kwargs)
        _replay(site, callee, args, kwargs, sys._getframe(2).f_globals)
        return
    if not _recordable(args, kwargs) or not _items_convertible(formats, args, kwargs):
        _replay_in_order(site, callee, args, kwargs, formats)
        return
    ambient = _ambient_condition()
    if ambient is not None:  # in a helper a deferred branch calls (push_condition)
        _defer_when(ambient, site, callee, formats, args, kwargs)
        return
    traced, args, kwargs = _traced_site(site, callee, args, kwargs)
    if traced is None:  # a frame the traced code cannot name: made now, as the original did
        _replay_in_order(site, callee, args, kwargs, formats)
        return
    _records.append((traced, callee, _snapshot(args), _snapshot(kwargs), formats))


# [Defer] of a whole branch (src/rewrite/defer/branch.cpp): the body of a data-dependent
# ``if`` that only builds strings from static values and prints, logs or warns runs while
# tracing whatever the condition, and its calls are recorded with the condition:
#
#     if rt.defer_branch(__gm_c0 := <condition>, lambda: (<values the body reads>,)) or __gm_c0:
#         ...
#         rt.defer_when(__gm_c0, site, logger.warning, message)

# The values a deferred branch may read (with torch dtypes and devices): on them ``==``,
# ``is``, ``bool``, ``str.format`` and string concatenation have no side effect and cannot
# raise.
_STATIC_TYPES = (type(None), bool, int, float, str)


def defer_branch(condition, read, helpers=()) -> bool:
    """Whether the body of the branch on ``condition`` may run whatever the condition.

    True only while compiling, when ``condition`` is a one-element tensor and every value
    ``read()`` returns (what the body reads from outside itself) is None, a bool, an int, a
    float, a str, a torch dtype, a torch device or a builtin warning class, and every helper
    of ``helpers`` (``(function, line of its def)`` pairs: the functions of the module the
    body calls, which the mender found to make only deferrable calls) is that mended
    function. The body then has no side effect but its deferred calls, which ``defer_when``
    (``push_condition`` for a helper's) records with the condition. Otherwise, and always
    eagerly, False: the ``if`` tests the condition as written (``... or condition``).
    """
    if not (is_compiling() and _one_element(condition)):
        return False
    if not all(_defers_only(helper, line) for helper, line, *_ in helpers):
        return False
    if not all(_plain_module(m) for _, _, *modules in helpers for m in (modules[0]() if modules else ())):
        return False
    try:
        values = read()
    except Exception:  # the original reads them only when the condition holds
        return False
    torch = sys.modules["torch"]
    static = (*_STATIC_TYPES, torch.dtype, torch.device)
    return all(type(value) in static or _warning_category(value) for value in values)


# What a deferring helper's loop over a module runs (``for p in model.parameters()``):
# nn.Module's own methods, which read the module's dictionaries and nothing else.
_MODULE_WALKS = (
    "parameters", "named_parameters", "buffers", "named_buffers", "children", "named_children",
    "modules", "named_modules", "_named_members", "__getattr__",
)


def _plain_module(value) -> bool:
    """Whether ``value`` is a module whose walks over its members are nn.Module's own."""
    module = sys.modules["torch"].nn.Module
    kind = type(value)
    return isinstance(value, module) and all(
        getattr(kind, name, None) is getattr(module, name) for name in _MODULE_WALKS
    )


def _warning_category(value) -> bool:
    # A builtin warning class: its equality and its name's formatting run no user code.
    return isinstance(value, type) and issubclass(value, Warning) and value.__module__ == "builtins"


def contains(element, container):
    """``element in container``; while compiling, for a plain tensor ``container`` and a
    number or tensor ``element``, the bool tensor ``(element == container).any()``, which is
    what ``Tensor.__contains__`` converts with ``.item()`` (a graph break)."""
    if is_compiling() and _plain_membership(element, container):
        return (element == container).any()
    return element in container


def not_contains(element, container):
    """``element not in container``, as ``contains`` (``logical_not`` of its tensor)."""
    if is_compiling() and _plain_membership(element, container):
        return sys.modules["torch"].logical_not((element == container).any())
    return element not in container


def _plain_membership(element, container) -> bool:
    if not _plain_tensor(container):
        return False
    torch = sys.modules["torch"]
    return isinstance(element, (torch.Tensor, numbers.Number, torch.SymInt, torch.SymFloat, torch.SymBool))


def defer_when(condition, site, callee, /, *args, **kwargs):
    """``defer`` inside a deferred branch: while compiling, with ``condition`` a one-element
    tensor, the record is replayed only if ``condition`` holds then. Eagerly (the ``if``
    tested the condition) it is ``defer``."""
    _defer_when(_under_ambient(condition), site, callee, (), args, kwargs)


def defer_format_when(condition, site, callee, formats, /, *args, **kwargs):
    """``defer_format`` inside a deferred branch (see ``defer_when``)."""
    _defer_when(_under_ambient(condition), site, callee, formats, args, kwargs)


def _defer_when(condition, site, callee, formats, args, kwargs):
    if not is_compiling():
        flush()  # records of compiled code earlier in this call come first
        args, kwargs = _apply_formats(formats, args, kwargs)
        _replay(site, callee, args, kwargs, sys._getframe(2).f_globals)
        return
    traced, args, kwargs = _traced_site(site, callee, args, kwargs)
    if traced is None or not _recordable(args, kwargs) or not _items_convertible(formats, args, kwargs):
        # Made now, as the original made it, if the condition holds (a graph break there);
        # one that is not a single element was tested by the if as written.
        if not _one_element(condition) or condition:
            _replay_in_order(site, callee, args, kwargs, formats)
        return
    if not _one_element(condition):  # the if tested the condition as written
        _records.append((traced, callee, _snapshot(args), _snapshot(kwargs), formats))
        return
    record = (condition.reshape(()).clone(), traced, callee, _snapshot(args), _snapshot(kwargs), formats)
    _records.append((None, _replay_when, record, {}, ()))


# The conditions of the deferred branches whose helper calls are being traced
# (push_condition; None for a branch whose if tested its condition as written).
_conditions: list = []


def push_condition(condition) -> None:
    """Before a helper call in the body of a deferred branch (see ``defer_branch``):
    ``pop_condition(push_condition(c) or helper(...))``. While compiling, the helper's
    deferred calls are recorded with ``condition`` (and the conditions of the branches
    around it), to be replayed only if it holds; eagerly nothing. The helper is called by
    the mended function itself, so its frames are the original's."""
    if not is_compiling():
        return
    if not _one_element(condition):  # the if tested it as written
        _conditions.append(None)
        return
    _conditions.append(_under_ambient(condition).reshape(()))


def _ambient_condition():
    """The condition the records of a deferred branch's helper are made under, or None."""
    return _conditions[-1] if _conditions else None


def _under_ambient(condition):
    """``condition`` and-ed with the ambient condition (a deferred branch in a helper that
    another deferred branch calls)."""
    ambient = _ambient_condition()
    if ambient is None or not _one_element(condition):
        return condition
    return sys.modules["torch"].logical_and(ambient, condition.reshape(()))


def pop_condition(result=None):
    """After the helper call ``push_condition`` prepared: returns its result."""
    if is_compiling():
        _conditions.pop()
    return result


@_asked_while_tracing
def _defers_only(helper, line) -> bool:
    """Asked while tracing: whether ``helper`` is the mended function defined on ``line`` of
    the file of the traced code that asks (the function holding the deferred branch)."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        code = getattr(helper, "__code__", None)
        if not isinstance(helper, types.FunctionType) or code is None:
            return False
        tx = InstructionTranslator.current_tx().output.current_tx
        while tx is not None and tx.f_code.co_filename == __file__:
            tx = tx.parent
        return (
            tx is not None
            and code.co_filename == tx.f_code.co_filename
            and code.co_firstlineno == line
            and _RUNTIME_NAME in code.co_names
        )
    except Exception:  # noqa: BLE001 (another torch: the helper runs if the condition holds)
        return False


def _replay_when(condition, site, callee, args, kwargs, formats):
    if condition:
        args, kwargs = _apply_formats(formats, args, kwargs)
        _replay(site, callee, args, kwargs)


def _apply_formats(formats, args, kwargs):
    if not formats:
        return args, kwargs
    args = list(args)
    kwargs = dict(kwargs)
    for key, template, *items in formats:
        target = args if isinstance(key, int) else kwargs
        values = target[key]
        if items:  # the values the original converted with .item() in the format
            values = tuple(v.item() if i in items[0] else v for i, v in enumerate(values))
        target[key] = template.format(*values)
    return tuple(args), kwargs


def _items_convertible(formats, args, kwargs) -> bool:
    """Whether every value a format converts with ``.item()`` is a one-element tensor, as the
    original's ``.item()`` needs: else the call runs at once and raises where it did."""
    for key, _template, *items in formats:
        values = args[key] if isinstance(key, int) else kwargs[key]
        for index in items[0] if items else ():
            value = values[index]
            if not _one_element(value):
                return False
    return True


def _flush_and_replay(site, callee, args, kwargs, formats=()):
    flush()
    args, kwargs = _apply_formats(formats, args, kwargs)
    frame = _caller_frame()  # the mended function: its module's warning registry
    _replay(site, callee, args, kwargs, None if frame is None else frame.f_globals)


def _replay_in_order(site, callee, args, kwargs, formats=()):
    """A call made at once while compiling (its arguments cannot be recorded): the records
    made before it in the region are replayed first, so the output keeps its order.
    TorchDynamo never traces into it (a graph break there, where the original broke)."""
    _flush_and_replay_impl(site, callee, args, kwargs, formats)


def _call_now(callee, /, *args, **kwargs):
    flush()
    return callee(*args, **kwargs)


def call_now(callee, /, *args, **kwargs):
    """``callee(*args, **kwargs)`` after replaying the pending records.

    Mended code routes a print that could not be deferred through this, so that calls
    deferred before it in the same compiled region still come out first. TorchDynamo never
    traces into it (``torch.compiler.disable``): it breaks the graph there, exactly where the
    original print broke it, and runs it eagerly. Returns the callee's result.
    """
    return _call_now_impl(callee, *args, **kwargs)


def _disabled(fn):
    try:
        import torch
    except ImportError:
        return fn
    return torch.compiler.disable(fn, recursive=True)


_call_now_impl = _disabled(_call_now)
_flush_and_replay_impl = _disabled(_flush_and_replay)


def pending() -> List[Record]:
    """The records not replayed yet (a copy), oldest first."""
    return list(_records)


def discard() -> None:
    """Drops the pending records without replaying them."""
    _records.clear()


def flush() -> None:
    """Replays the pending records in order and clears them.

    Call from eager code after the compiled callable returns or raises (see the module
    docstring). Each record is taken off the list before it runs, so a replayed call that
    raises leaves the later records pending for the next ``flush`` and does not repeat
    itself; the exception propagates.
    """
    while _records:
        site, callee, args, kwargs, formats = _records.pop(0)
        args, kwargs = _apply_formats(formats, args, kwargs)
        _replay(site, callee, args, kwargs)


_LOGGER_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "warn": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "fatal": logging.CRITICAL,
}

_MODULE_LOGGING_FUNCTIONS = {
    getattr(logging, name): name for name in (*_LOGGER_LEVELS, "log") if hasattr(logging, name)
}


def _replay(site, callee, args, kwargs, module_globals=None) -> None:
    """Calls ``callee`` as the original call at ``site`` would have: log records and
    warnings carry the site's file, line and function (``module_globals``, when known, are
    those of the calling module: its ``__name__`` and ``__warningregistry__``)."""
    if callee is warnings.warn:
        level = _warning_level(args, kwargs)
        if level is None:  # not an int: warnings.warn raises its own TypeError
            callee(*args, **kwargs)
            return
        if level > 1:  # made now: the frame is on the stack
            site, module_globals = _frame_site(_caller_frame(), level)
            args, kwargs = _at_level_one(args, kwargs)
        _replay_warning(site, module_globals, *args, **kwargs)
        return
    logger, method = _logger_method(callee)
    if logger is not None and (method in _LOGGER_LEVELS or method == "log"):
        _replay_log(site, logger, method, args, kwargs)
        return
    # warning_once, info_once and other logger methods log from their own frame (the
    # record's site is inside them, not the caller's): calling them is what the original did.
    callee(*args, **kwargs)


def _logger_method(callee) -> Tuple[Optional[logging.Logger], str]:
    owner = getattr(callee, "__self__", None)
    if isinstance(owner, (logging.Logger, logging.LoggerAdapter)):
        return owner, getattr(callee, "__name__", "")
    name = _MODULE_LOGGING_FUNCTIONS.get(callee)
    if name is not None:
        root = logging.getLogger()
        if not root.handlers:
            logging.basicConfig()  # what logging.info() and friends do first
        return root, name
    return None, ""


def _replay_log(site, logger, method, args, kwargs) -> None:
    if isinstance(logger, logging.LoggerAdapter):
        msg, kwargs = logger.process(args[1] if method == "log" else args[0], dict(kwargs))
        args = (args[0], msg, *args[2:]) if method == "log" else (msg, *args[1:])
        logger = logger.logger
    if method == "log":
        level, msg, *rest = args
        if not isinstance(level, int):
            if logging.raiseExceptions:
                raise TypeError("level must be an integer")
            return
    else:
        level = _LOGGER_LEVELS[method]
        msg, *rest = args
    if method in ("warn",):
        warnings.warn(
            "The 'warn' method is deprecated, use 'warning' instead", DeprecationWarning, 2
        )
    if not logger.isEnabledFor(level):
        return
    filename, lineno, funcname = site
    extra = kwargs.get("extra")
    record = logger.makeRecord(
        logger.name, level, filename, lineno, msg, tuple(rest), None, funcname, extra, None
    )
    logger.handle(record)


_MODULE_BY_FILE: dict = {}


def _module_globals_for(filename: str) -> Optional[dict]:
    """The globals of the loaded module whose ``__file__`` is ``filename`` (cached)."""
    module = _MODULE_BY_FILE.get(filename)
    if module is not None and sys.modules.get(getattr(module, "__name__", None)) is module:
        return module.__dict__
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == filename:
            _MODULE_BY_FILE[filename] = module
            return module.__dict__
    return None


def _replay_warning(site, module_globals, message, category=None, stacklevel=1, source=None):
    """warnings.warn(message, category) as issued from ``site`` (stacklevel 1)."""
    if site[0] == _BOUNDARY_CALLER:
        site, module_globals = _frame_site(_boundary_caller(), site[1])
    filename, lineno, _ = site
    if isinstance(message, Warning):
        category = message.__class__
    if category is None:
        category = UserWarning
    if not (isinstance(category, type) and issubclass(category, Warning)):
        raise TypeError(
            "category must be a Warning subclass, not '{:s}'".format(type(category).__name__)
        )
    if module_globals is None:
        module_globals = _module_globals_for(filename)
    if module_globals is not None:
        module = module_globals.get("__name__", "<string>")
        registry = module_globals.setdefault("__warningregistry__", {})
    else:
        module = filename[:-3] if filename.endswith(".py") else filename
        registry = {}
    # No module_globals, as warnings.warn passes none: with them, warn_explicit reads the
    # module's source through its loader on every call, before the registry says "seen".
    warnings.warn_explicit(message, category, filename, lineno, module, registry, None, source)


# A warning's stacklevel names a frame above the call (``warnings.warn(..., stacklevel=2)`` in
# a helper: the helper's caller). Eagerly that frame is on the stack. While tracing, the
# frames between the call and the compiled frame are Dynamo's inlined calls, the same for
# every run of the graph, so the site is found then and recorded as a constant; a level past
# the compiled frame names the caller of the compile boundary (``_BOUNDARY_CALLER``), found
# at replay. A site neither shows (a module's forward, whose ``Module.__call__`` frames
# Dynamo does not trace) makes the call at once, a graph break, as the original did.

_BOUNDARY_CALLER = "<graphmend: the caller of the compiled call>"
# The code of the compile boundary's wrapper, and of the functions it compiles, by id.
_BOUNDARY_CODES: dict = {}
_ENTRY_CODES: dict = {}
# The modules whose forward code is in _ENTRY_CODES, by the same key (weak references).
_ENTRY_MODULES: dict = {}


def _warning_level(args, kwargs) -> Optional[int]:
    """The stacklevel of a ``warnings.warn`` call's arguments: 1 when not given, at least 1
    (``warnings`` takes lower levels as 1), None when not an int (``warn`` raises)."""
    level = args[2] if len(args) >= 3 else kwargs.get("stacklevel", 1)
    if not isinstance(level, int):
        return None
    return max(level, 1)


def _at_level_one(args, kwargs):
    """The arguments with the stacklevel 1: the site already names the frame."""
    if len(args) >= 3:
        return (*args[:2], 1, *args[3:]), kwargs
    if "stacklevel" in kwargs:
        return args, {**kwargs, "stacklevel": 1}
    return args, kwargs


_SEP = "\\" if sys.platform == "win32" else "/"


def _internal_frame(frame) -> bool:
    filename = frame.f_code.co_filename
    return filename == __file__ or f"{_SEP}torch{_SEP}_dynamo{_SEP}" in filename or (
        f"{_SEP}torch{_SEP}compiler{_SEP}" in filename
    )


def _caller_frame():
    """The frame of the mended function that made the call: the first outside this module
    and Dynamo's own (a call made at once from traced code runs behind ``disable``)."""
    frame = sys._getframe(1)
    while frame is not None and _internal_frame(frame):
        frame = frame.f_back
    return frame


def _next_external(frame):
    """``frame.f_back``, skipping importlib's bootstrap frames, as ``warnings`` does, and the
    frames the original did not have: this module's and Dynamo's (its wrapper stands between
    a compiled function and its caller)."""
    resumed = _resumed_name(frame.f_code.co_name)
    frame = frame.f_back
    while frame is not None and (
        _internal_frame(frame)
        or ("importlib" in frame.f_code.co_filename and "_bootstrap" in frame.f_code.co_filename)
    ):
        frame = frame.f_back
    # A function Dynamo resumed after a graph break runs in two frames (or more): the
    # resume function's, called from the original's; the original had one.
    while resumed is not None and frame is not None and resumed in (
        frame.f_code.co_name,
        _resumed_name(frame.f_code.co_name),
    ):
        frame = _next_external(frame)
    return frame


_RESUME_PREFIX = "torch_dynamo_resume_in_"


def _resumed_name(name: str) -> Optional[str]:
    """The function a Dynamo resume function (``torch_dynamo_resume_in_<name>_at_<line>``)
    resumes, else None."""
    if not name.startswith(_RESUME_PREFIX):
        return None
    return name[len(_RESUME_PREFIX) :].rsplit("_at_", 1)[0]


def _frame_site(frame, level: int):
    """The site and globals ``warnings`` gives a warning issued at ``frame`` with
    ``stacklevel=level``: the frame ``level - 1`` calls up, or ``sys`` line 1 past the top."""
    for _ in range(level - 1):
        if frame is None:
            break
        frame = _next_external(frame)
    if frame is None:
        return ("sys", 1, "<module>"), sys.__dict__
    return (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name), frame.f_globals


_caller_frame = _disabled(_caller_frame)


def _boundary_caller():
    """The frame that called the innermost running compile boundary (None: none runs)."""
    frame = sys._getframe(1)
    while frame is not None and id(frame.f_code) not in _BOUNDARY_CODES:
        frame = frame.f_back
    return None if frame is None else frame.f_back


def _traced_site(site, callee, args, kwargs):
    """``(site, args, kwargs)`` for a record made while tracing: for a ``warnings.warn`` with a
    stacklevel above 1, the site of the frame it names and the arguments with stacklevel 1;
    ``(None, args, kwargs)`` when the traced frames cannot name it."""
    if callee is not warnings.warn:
        return site, args, kwargs
    level = _warning_level(args, kwargs)
    if level is None:
        return None, args, kwargs
    if level == 1:
        return site, args, kwargs
    traced = _inlined_site(level, _bounded > 0)
    if traced is None:
        return None, args, kwargs
    args, kwargs = _at_level_one(args, kwargs)
    return traced, args, kwargs


@_asked_while_tracing
def _inlined_site(level: int, bounded: bool):
    """Asked while tracing: the site ``level - 1`` calls above the mended function that calls
    a runtime helper, from Dynamo's inlined frames; ``(_BOUNDARY_CALLER, n, "")`` for the
    n-th frame above the compiled frame when that frame is a function a compile boundary
    compiled (``bounded``); None when the frames cannot tell: a step out of a ``forward``
    (``Module.__call__``'s frames are not traced), past another compiled frame (a resumed
    frame's caller is the original's), or Dynamo's tracer cannot be read."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        tx = InstructionTranslator.current_tx().output.current_tx
        while tx is not None and tx.f_code.co_filename == __file__:
            tx = tx.parent
        for step in range(level - 1):
            if tx is None or tx.f_code.co_name == "forward":
                return None
            if tx.parent is None:
                if not bounded or id(tx.f_code) not in _ENTRY_CODES:
                    return None
                return (_BOUNDARY_CALLER, level - 1 - step, "")
            tx = tx.parent
        if tx is None:
            return None
        positions = getattr(tx.current_instruction, "positions", None)
        lineno = getattr(positions, "lineno", None) or tx.lineno
        return (tx.f_code.co_filename, lineno, tx.f_code.co_name)
    except Exception:  # noqa: BLE001 (another torch: make the call at once)
        return None


def register_boundary(wrapper_code, entry=None) -> None:
    """Names the compile boundary's wrapper code and what it compiles (``entry``: a
    function, or a module, whose forward Dynamo compiles): a warning whose stacklevel reaches
    past the compiled frame names the boundary's caller, and a failed ``rerun_if`` in the
    call's first graph runs the call again."""
    _BOUNDARY_CODES[id(wrapper_code)] = wrapper_code
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(entry, torch.nn.Module):
        forward = getattr(type(entry), "forward", None)
        code = getattr(forward, "__code__", None)
        if code is not None:
            _ENTRY_CODES[id(code)] = code
            _ENTRY_MODULES[id(code)] = weakref.ref(entry)
        return
    code = getattr(getattr(entry, "__func__", entry), "__code__", None)
    if code is not None:
        _ENTRY_CODES[id(code)] = code


# ---------------------------------------------------------------------------------------------
# [Trap].
#
# A compiled trap is ``torch._assert_async(ok, token)``. The token names the exception class
# and message in letters, digits and ``_`` only: backends write the message into generated
# source (Inductor's C++ on CPU, unescaped), so user text there could break their compile.
# ``translate`` accepts an exception only when it is exactly what a failed ``_assert_async``
# raises at run time: a plain RuntimeError whose whole text is a token.

TRAP_TOKEN_PREFIX = "graphmend_trap_"
_TOKEN = re.compile(TRAP_TOKEN_PREFIX + r"([0-9a-f]+)_(?:n|m([0-9a-f]*))")


def _hex(text: str) -> str:
    return text.encode("utf-8", "surrogatepass").hex()


# The classes of the traps traced in this process, by the token's class part: translate
# finds a class here even when its module cannot be imported by name.
_TRAP_CLASSES: dict = {}


# Traced, the token is computed once at trace time, by Python itself, and kept as a
# constant (Dynamo cannot trace bytes.hex, and a loop over a long message would slow
# tracing down); so every trap a compiled graph holds has its class in _TRAP_CLASSES.
@_asked_while_tracing
def _token(exc_type, message) -> str:
    """The trap token of ``exc_type(message)`` (``exc_type()`` when ``message`` is None)."""
    module = getattr(exc_type, "__module__", "builtins")
    qualname = getattr(exc_type, "__qualname__", getattr(exc_type, "__name__", "Exception"))
    where = _hex(f"{module}:{qualname}")
    _TRAP_CLASSES[where] = exc_type
    return f"{TRAP_TOKEN_PREFIX}{where}_n" if message is None else f"{TRAP_TOKEN_PREFIX}{where}_m{_hex(message)}"


@_asked_while_tracing
def _region_changed_state() -> bool:
    """Whether the graph Dynamo is tracing has changed state so far: a tensor it takes as an
    input (a parameter, a buffer, an argument, or a view of one) mutated in place (its fake
    tensor's version counter moved: `add_`, BatchNorm's running statistics in training), or
    an attribute of a module set (`self.steps += 1`). Other pending Python side effects are
    not counted: transformers sets a context variable for each forward and resets it after,
    and a guard would break on every model (a list a module appends to is such a side effect
    too, and is lost when the guard fails in the graph). Asked while tracing
    (``assume_constant_result``: it runs then, and nothing of it is in the graph); True when
    Dynamo's tracer cannot be read, the safe answer."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator
        from torch._dynamo.variables.base import AttributeMutationNew, ValueMutationNew
        from torch._dynamo.variables.nn_module import NNModuleVariable, UnspecializedNNModuleVariable

        output = InstructionTranslator.current_tx().output
        effects = output.side_effects
        for variable in effects.id_to_variable.values():
            if not isinstance(variable, (NNModuleVariable, UnspecializedNNModuleVariable)):
                continue  # a context variable set for the call and reset after it, say
            created = isinstance(variable.mutation_type, (AttributeMutationNew, ValueMutationNew))
            if not created and effects.is_modified(variable):  # a module from before the call
                return True
        torch = sys.modules["torch"]
        for node in output.graph.find_nodes(op="placeholder"):
            value = node.meta.get("example_value")
            if isinstance(value, torch.Tensor) and value._version > 0:
                return True
        return False
    except Exception:  # noqa: BLE001 (another torch: take the graph break)
        return True




# The guards (the traced function's code and line) whose graph went on to change state or
# to break after them: they are checked eagerly from then on (see _raise_deferrable).
_EAGER_GUARDS: set = set()


@_asked_while_tracing
def _raise_deferrable() -> bool:
    """Asked while tracing, for a guard behind a compile boundary: whether its failure may be
    raised by the boundary's flush after the graph completes. True when the graph belongs to
    the frame the boundary compiles (nothing of the call runs after it but the flush); the
    graph is then checked when Dynamo compiles it (``_check_after_guard``): if it breaks
    after the guard or changes state there, which the original never did, the trace starts
    again with this guard checked eagerly (a graph break)."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        output = InstructionTranslator.current_tx().output
        site = _guard_site(output.current_tx)
        if site in _EAGER_GUARDS or id(output.root_tx.f_code) not in _ENTRY_CODES:
            return False
        before = _state_marks(output)
        output.add_graph_finalizer(lambda _gm: _check_after_guard(output, site, before))
        return True
    except Exception:  # noqa: BLE001 (another torch: take the graph break)
        return False


def _guard_site(tx):
    """The mended function calling the guard, as its code and line."""
    while tx is not None and tx.f_code.co_filename == __file__:
        tx = tx.parent
    return (tx.f_code, tx.lineno)


def _state_marks(output):
    """The graph's state changes so far: the version of each input tensor, and the objects
    from before the call that Dynamo will modify (the record lists of this module aside;
    an object the trace created is seen only through one from before that holds it)."""
    torch = sys.modules["torch"]
    versions = {}
    for node in output.graph.find_nodes(op="placeholder"):
        value = node.meta.get("example_value")
        if isinstance(value, torch.Tensor):
            versions[node.name] = value._version
    from torch._dynamo.variables.base import AttributeMutationNew, ValueMutationNew

    effects = output.side_effects
    ours = {id(_records), id(_conditions)}
    modified = {
        key
        for key, variable in effects.id_to_variable.items()
        if key not in ours
        and not isinstance(variable.mutation_type, (AttributeMutationNew, ValueMutationNew))
        and effects.is_modified(variable)
    }
    return versions, modified


def _check_after_guard(output, site, before) -> None:
    """When Dynamo compiles a graph holding a recorded guard: a graph that ends in a break
    (the rest of the call runs before the flush) or changes state after the guard is traced
    again with the guard checked eagerly."""
    try:
        reason = output.compile_subgraph_reason
        versions, modified = _state_marks(output)
        changed = any(version > before[0].get(name, 0) for name, version in versions.items())
        changed = changed or not modified <= before[1] or reason is None or reason.graph_break
    except Exception:  # noqa: BLE001 (another torch: check the guard eagerly)
        changed = True
    if changed:
        # The restart that clears Dynamo's speculation log: the new trace departs from the
        # old one at this guard.
        from torch._dynamo.exc import UnspecializeRestartAnalysis

        _EAGER_GUARDS.add(site)
        raise UnspecializeRestartAnalysis(restart_reason="graphmend: state changed after a guard")


def _traceable_message(message) -> bool:
    return message is None or type(message) is str


def _check(failed, exc_type, message):
    """The original guard itself: ``if failed: raise exc_type(message)``."""
    if failed:
        raise exc_type() if message is None else exc_type(message)


def guard(failed, exc_type, message=None):
    """``if failed: raise exc_type(message)``, without a graph break while compiling.

    Not compiling: exactly the original guard (``bool(failed)``, then ``exc_type(message)``,
    or ``exc_type()`` when ``message`` is None). Compiling, with ``failed`` a one-element
    tensor and ``message`` a str or None: ``torch._assert_async(torch.logical_not(failed),
    token)`` with the trap token of ``exc_type(message)`` (a constant at trace time); the
    failure surfaces as a RuntimeError from the compiled call, which ``translate`` turns
    back into ``exc_type(message)``. Anything else (a Python bool, a multi-element tensor)
    takes the original path.

    When deferred calls are already pending in the traced region (a print before the guard)
    or the graph has changed state so far (a parameter's ``add_``), a failed ``_assert_async``
    would abort the compiled region and lose both, where the original printed and kept them
    before raising. Behind a compile boundary (``graphmend.compile``), where nothing of the
    call runs after this graph but the flush and the rest of the graph changes no state
    (``_raise_deferrable``), the guard is then recorded too: the graph completes, ``flush``
    replays the records before the guard, raises ``exc_type(message)`` if it failed and drops
    the records after it, so the output, the state and the exception are the original's,
    with no graph break. Otherwise (plain ``torch.compile`` of hook-mended code, which
    nothing flushes at the call) it takes the original path, at the cost of a graph break.
    """
    if is_compiling() and _one_element(failed) and _traceable_message(message):
        if _records or _region_changed_state():
            # A failed in-graph assert aborts the graph: the records deferred before the guard
            # and the state the graph changed so far (Inductor writes mutated inputs back at
            # the end; Dynamo applies attribute changes after the graph) would be lost.
            if _bounded and _raise_deferrable():
                # The guard becomes a record of its own: the graph completes, and flush
                # replays the records before it, then raises (see _raise_pending).
                record = (failed.reshape(()).clone(), exc_type, message)
                _records.append((None, _raise_pending, record, {}, ()))
                return
            _check_now(failed, exc_type, message)  # one graph break, checked eagerly
            return
        torch = sys.modules["torch"]
        torch._assert_async(torch.logical_not(failed.reshape(())), _token(exc_type, message))
        return
    _check(failed, exc_type, message)


def guard_formatted(failed, exc_type, make_message):
    """``guard`` for a message the original formats (an f-string, ``%`` or ``.format`` over
    values that are not tensors): ``make_message`` is ``lambda: <the message expression>``.

    Not compiling: ``if failed: raise exc_type(make_message())``, exactly the original (the
    message is formatted only when the guard fails). Compiling, with ``failed`` a one-element
    tensor: the message is formatted while tracing, where Dynamo folds the values (config
    values, dtypes, Python numbers, static shapes) into a constant string, and the guard is
    the in-graph assert ``guard`` emits. A message Dynamo cannot fold breaks the graph inside
    this function, which then runs as it does eagerly.
    """
    if is_compiling() and _one_element(failed):
        guard(failed, exc_type, make_message())
        return
    if failed:
        raise exc_type(make_message())


def rerun_if(condition):
    """The test of a guard the other forms cannot lower (a message formatted from tensor
    data, DETR's ``f"... {boxes1}"``; statements before the raise): ``if rerun_if(c): <the
    original body>``.

    Not compiling: ``condition`` itself, so the ``if`` is the original's. Compiling, with a
    one-element tensor, where nothing the program could see has changed yet in the call
    (``_rerun_safe``): False, with an in-graph assert that the condition does not hold; its
    failure makes the compile boundary run the whole call again, eagerly, from the same
    arguments and random state (``rerun``), so the original's body runs, its output and its
    exception (message and all) exactly the original's. Otherwise (and for a condition on
    an accelerator, whose assert is asynchronous: a later call would see the failure and run
    again instead) ``condition``: the ``if`` tests it (a graph break, as the original's).
    """
    if (
        is_compiling()
        and _one_element(condition)
        and condition.device.type == "cpu"  # an accelerator's assert would surface later
        and _rerun_safe(_bounded > 0)
    ):
        torch = sys.modules["torch"]
        torch._assert_async(torch.logical_not(condition.reshape(())), RERUN_TOKEN)
        return False
    return condition


# A failed rerun_if: the compile boundary runs the call again eagerly (see ``rerun``).
RERUN_TOKEN = TRAP_TOKEN_PREFIX + "rerun"
# Whether a rerun_if was traced in this process (the boundary then keeps the random
# state of each call), and the random state when the first was traced (the state of the
# call during which it was: nothing ran before the trace, ``_rerun_safe``).
_rerun_guards = False
_traced_random_state = None


@_asked_while_tracing
def _rerun_safe(bounded: bool) -> bool:
    """Asked while tracing: whether a failure at this point may be answered by running the
    call again eagerly. True behind a compile boundary (``bounded``) whose entry is the
    compiled frame (so this graph is the call's first: no earlier graph or eager code of the
    call ran), for a module entry without hooks, when the graph has changed no state so far
    (``_region_changed_state``)."""
    global _rerun_guards, _traced_random_state
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        root = InstructionTranslator.current_tx().output.root_tx
        if not bounded or id(root.f_code) not in _ENTRY_CODES or _region_changed_state():
            return False
        module = _ENTRY_MODULES.get(id(root.f_code))
        if module is not None and _has_hooks(module()):
            return False
        if not _rerun_guards:
            _traced_random_state = random_state()
            _rerun_guards = True
        return True
    except Exception:  # noqa: BLE001 (another torch: take the graph break)
        return False


def _has_hooks(module) -> bool:
    """Whether calling ``module`` runs code besides its forward (hooks of its own or global
    ones); True for a module no longer alive."""
    if module is None:
        return True
    torch = sys.modules["torch"]
    hooks = torch.nn.modules.module
    own = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
    shared = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
              "_global_backward_pre_hooks")
    return any(getattr(module, name, None) for name in own) or any(
        getattr(hooks, name, None) for name in shared
    )


def random_state():
    """The default generators' states (CPU, and each CUDA device's once CUDA is in use)."""
    torch = sys.modules["torch"]
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    return torch.get_rng_state(), cuda


def set_random_state(state) -> None:
    torch = sys.modules["torch"]
    cpu, cuda = state
    torch.set_rng_state(cpu)
    if cuda is not None:
        torch.cuda.set_rng_state_all(cuda)


def is_rerun(exc: BaseException) -> bool:
    """Whether ``exc`` is the failure of a compiled ``rerun_if``."""
    return type(exc) is RuntimeError and exc.args == (RERUN_TOKEN,)


def rerun(call, random, args, kwargs):
    """The call again, eagerly, after a compiled ``rerun_if`` failed: the records the
    aborted graph made are dropped (it applied none), the random state is put back to the
    call's start (``random``, or the one kept when the guard was traced during this call),
    and ``call`` (the entry, not compiled) runs as the original did."""
    _records.clear()
    state = random if random is not None else _traced_random_state
    if state is not None:
        set_random_state(state)
    return call(*args, **kwargs)


def _raise_pending(failed, exc_type, message):
    """A guard recorded behind deferred records (see ``guard``), replayed by ``flush``: when
    it failed, the records made after it are dropped (the original never made them) and the
    original guard's exception is raised."""
    if failed:
        _records.clear()
        _check(True, exc_type, message)


def check_assert(ok, message=None) -> bool:
    """``assert ok, message`` as mended code writes it: ``assert check_assert(ok, message)``.

    Not compiling: raises ``AssertionError(message)`` (``AssertionError()`` when ``message``
    is None) when ``bool(ok)`` is false, exactly the original assert; returns True otherwise.
    Compiling, with ``ok`` a one-element tensor: an in-graph assert whose failure the
    compile boundary turns into that AssertionError (Dynamo's own rewrite of a tensor
    ``assert`` raises RuntimeError instead). The enclosing ``assert`` keeps ``python -O``
    removing the whole statement, as it removed the original.
    """
    if is_compiling() and _one_element(ok) and _traceable_message(message):
        failed = sys.modules["torch"].logical_not(ok.reshape(()))
        guard(failed, AssertionError, message)
        return True
    _check(not ok, AssertionError, message)
    return True


# The token of a failed ``check_tensor_all``: ``translate`` rebuilds the RuntimeError
# torch._check_tensor_all itself raises.
class _TensorCheck:
    __module__ = "torch"
    __qualname__ = "_check_tensor_all"


def check_tensor_all(cond, message=None):
    """``torch._check_tensor_all(cond, message)``, without a graph break while compiling.

    Not compiling (or with a message callable, a non-bool or non-tensor ``cond``, or deferred
    calls pending): exactly ``torch._check_tensor_all``. Compiling: ``torch._assert_async``
    of ``torch.all(cond)`` with a trap token, so a failure surfaces from the compiled call
    as a RuntimeError that ``translate`` turns into the RuntimeError
    ``torch._check_tensor_all`` raises. (``torch._check_tensor_all`` itself reads the
    tensor on the host with ``.item()``, a graph break.)
    """
    torch = sys.modules["torch"]
    if (
        is_compiling()
        and message is None
        and not _records
        and _is_tensor(cond)
        and cond.dtype == torch.bool
        and not _region_changed_state()
    ):
        torch._assert_async(torch.all(cond), _token(_TensorCheck, None))
        return
    torch._check_tensor_all(cond, message)


def _tensor_check_error() -> Optional[BaseException]:
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    try:
        torch._check_tensor_all(torch.zeros((), dtype=torch.bool))
    except RuntimeError as exc:
        exc.__traceback__ = None
        return exc
    return None


_check_now = _disabled(_check)


def _resolve(module: str, qualname: str):
    try:
        target = builtins if module == "builtins" else importlib.import_module(module)
    except Exception:
        return None
    for part in qualname.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target


def _unhex(text: str) -> Optional[str]:
    try:
        return bytes.fromhex(text).decode("utf-8", "surrogatepass")
    except ValueError:
        return None


def translate(exc: BaseException) -> Optional[BaseException]:
    """The original exception for the failure of a compiled trap, or None.

    Only the exception a failed trap raises at run time qualifies: a plain RuntimeError
    (not a subclass: compile and backend errors are subclasses) whose whole text is a trap
    token. Anything else, a compile failure that quotes a token or a RuntimeError of the
    program's own included, gives None (re-raise ``exc`` itself). The class is the one
    traced with the token, else resolved from it (builtins by name, others by importing the
    module and following the qualified name), and called as the original did:
    ``cls(message)``, or ``cls()`` without a message. When that call fails, its error is
    what the original's ``raise`` raised, and is returned; None only when no class is found.
    """
    if type(exc) is not RuntimeError or len(exc.args) != 1 or type(exc.args[0]) is not str:
        return None
    match = _TOKEN.fullmatch(exc.args[0])
    if match is None:
        return None
    where = _unhex(match.group(1))
    message = None if match.group(2) is None else _unhex(match.group(2))
    if where is None or ":" not in where or (match.group(2) is not None and message is None):
        return None
    module, qualname = where.rsplit(":", 1)
    if (module, qualname) == (_TensorCheck.__module__, _TensorCheck.__qualname__):
        return _tensor_check_error()
    cls = _TRAP_CLASSES.get(match.group(1)) or _resolve(module, qualname)
    if cls is None:
        return None
    return _raised_by(cls, message)


def _raised_by(cls, message) -> BaseException:
    """What ``raise cls(message)`` (``raise cls`` without a message) raises: the instance,
    or the error its construction raised, or Python's TypeError for a non-exception."""
    try:
        result = cls() if message is None else cls(message)
    except Exception as exc:  # the original's raise statement raised this instead
        exc.__traceback__ = None
        return exc
    if isinstance(result, BaseException):
        return result
    return TypeError("exceptions must derive from BaseException")


# --- predication
# [Where] and torch.cond support for mended code. Everything where_ok looks at is a
# static fact under Dynamo (Python types, shapes, dtypes, devices, grad mode,
# requires_grad), so calling it inside a compiled region never breaks the graph; it only
# adds guards.


def tensors(*values) -> bool:
    """Whether mended code may speculate on ``values``: while compiling, every value is a
    plain tensor (``torch.Tensor`` or ``nn.Parameter``).

    Mended code speculates on values whose type the source does not show (unannotated
    parameters, submodule outputs, buffers) only when this holds, and runs the original
    statement otherwise. A subclass (one with its own ``__torch_function__``, say) takes
    the original path. Not compiling, it is False: eagerly the original statement runs,
    at the original's cost (speculation computes every branch, which only pays off in a
    graph). Under Dynamo each test is resolved while tracing: no graph break, nothing in
    the graph.
    """
    if not is_compiling():
        return False
    return all(_plain_tensor(value) for value in values)


def python_numbers(*values) -> bool:
    """Whether mended code may take ``values`` for Python numbers: while compiling, each is
    exactly an ``int`` or a ``float`` (not a bool, a NumPy scalar or a tensor).

    Tail duplication computes a branch's Python-number value on both sides of a tensor
    condition (``min(s_churn / (len(sigmas) - 1), 2**0.5 - 1) if lo <= sigma <= hi else
    0.0``): comparing and combining int and float cannot raise, so that is safe when the
    values it reads are numbers. Otherwise, and eagerly, the original statement runs. Under
    Dynamo the test is resolved while tracing: no graph break, nothing in the graph.
    """
    if not is_compiling():
        return False
    return all(type(value) in (int, float) for value in values)


def python_ints(*values) -> bool:
    """``python_numbers`` for values declared ``int`` (``top_k: Optional[int] = None``): each
    exactly an ``int``, since mended code may pass it where a float raises (``x.topk(k)``)
    on a side of a branch the original did not run."""
    if not is_compiling():
        return False
    return all(type(value) is int for value in values)


def python_flags(*values) -> bool:
    """Whether mended code may test ``values`` in Python where the original might not: while
    compiling, each is exactly a ``bool``, ``int``, ``float`` or ``None``, whose truth test
    cannot raise.

    Tail duplication computes the false side of ``if x is not None and <tensor test>: ...
    elif flag: ...`` (transformers' Reformer) even where the tensor test holds, so it tests
    ``flag`` there too. Otherwise, and eagerly, the original statement runs. Under Dynamo the
    test is resolved while tracing: no graph break, nothing in the graph.
    """
    if not is_compiling():
        return False
    return all(value is None or type(value) in (bool, int, float) for value in values)


def same_method(obj, name, function) -> bool:
    """Whether ``obj.<name>`` runs ``function``, the method (plain or static) a class of the
    module defines: no subclass overrides it and no instance attribute hides it.

    Mended code computes a method's result where the original might not only as the source
    shows that method, pure; a replaced one takes the original path. Under Dynamo the test
    is resolved while tracing: no graph break, nothing in the graph.
    """
    attribute = getattr(obj, name, None)
    return getattr(attribute, "__func__", attribute) is function


_COMPARISONS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


# How mended conditions read a Python scalar from a tensor (item_compare's `read`).
_READS = {"item": lambda value: value.item(), "float": float, "int": int, "bool": bool}


def item_compare(value, op, other, read="item"):
    """``value.item() <op> other`` (``read`` "float": ``float(value) <op> other``; "int":
    ``int(value) <op> other``) for mended conditions: a bool tensor while compiling where that
    is exactly Python's comparison, else the original comparison itself.

    Exact, for a one-element tensor and a Python number: a floating ``value`` read with
    ``.item()`` or ``float()``, or any real ``value`` read with ``float()`` (torch's int64 to
    float64 conversion rounds as Python's ``float(int)`` does), compared in float64 with a
    number that float64 holds exactly (a float, an int up to 2**53); an integer or bool
    ``value`` read with ``.item()`` or ``int()``, compared in int64, with an int or bool that
    int64 holds. Anything else (an integer tensor against a float, which torch would compare
    in float32; ``int()`` of a floating tensor, which truncates and raises on NaN) returns
    the original comparison, a Python bool: a graph break while compiling, as in the
    original. Every test is resolved while tracing.
    """
    compare = _COMPARISONS[op]
    if is_compiling() and _one_element(value) and not value.is_complex():
        kind = type(other)
        exact_number = kind is float or (kind in (int, bool) and abs(other) <= 2**53)
        floating = value.is_floating_point()
        if exact_number and (read == "float" or (floating and read == "item")):
            return compare(value.reshape(()).double(), other)
        in_int64 = kind in (int, bool) and -(2**63) <= other < 2**63
        if not floating and read in ("item", "int") and in_int64:
            return compare(value.reshape(()).long(), other)
    return compare(_READS[read](value), other)


def item_later(value, read="item"):
    """``value.item()`` (``read`` "int": ``int(value)``, "float": ``float(value)``, "bool":
    ``bool(value)``) for a scalar the program only compares with ints, tests with ``isinstance`` and reads in the
    bodies of guards (a held scalar: ``n = mask.sum().item()``, then ``if x.shape[0] != n:
    raise ...``).

    Not compiling: exactly the original read. Compiling, with a plain one-element tensor, a
    0-d copy of it that holds the scalar exactly: read with ``bool()``, whether it is nonzero
    (a bool tensor; NaN is true, as for Python); read with ``float()``, any real dtype as
    float64 (torch converts int64 to float64 rounding as Python's ``float(int)`` does);
    otherwise a bool tensor as it is (read with ``int()``: as int64), any other integer dtype
    as int64, and a floating one read with ``.item()`` as float64 (the double ``.item()``
    returns). The comparisons that follow are then tensors in the graph instead of a graph
    break here; each gives exactly what the scalar gives against an int below 2**53 (what
    sema lets a held scalar be compared with), since torch compares in int64 or float64
    there; ``item_isinstance`` and ``item_now`` answer the other uses as the scalar would. A
    copy, since the program may change the tensor in place before a comparison reads it.
    Anything else (``int()`` of a floating tensor, which truncates and raises on NaN; uint64
    and complex; more than one element, where the read raises) reads the scalar now, as the
    original.
    """
    if is_compiling() and _plain_tensor(value) and value.numel() == 1:
        torch = sys.modules["torch"]
        held = value.detach().reshape(())
        integer = (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
        floating = value.is_floating_point()
        if read == "bool" and (value.dtype in integer or floating):
            return held != 0
        if read == "float" and (value.dtype in integer or floating):
            return held.to(torch.float64, copy=True)
        if value.dtype == torch.bool and read == "item":
            return held.clone()
        if value.dtype in integer:
            return held.to(torch.int64, copy=True)
        if floating and read == "item":
            return held.to(torch.float64, copy=True)
    return _READS[read](value)


def item_isinstance(value, classinfo) -> bool:
    """``isinstance(value, classinfo)`` for a held scalar (``item_later``): of a held tensor,
    what ``isinstance`` says of the scalar it stands for (a bool, an int or a float, by its
    dtype), with the same errors for a bad ``classinfo``. Resolved while tracing."""
    if _is_tensor(value):
        torch = sys.modules["torch"]
        if value.dtype == torch.bool:
            return isinstance(False, classinfo)
        return isinstance(0.0 if value.is_floating_point() else 0, classinfo)
    return isinstance(value, classinfo)


def item_now(value):
    """A held scalar (``item_later``) where the program needs the Python scalar itself (in the
    body of a guard, which runs eagerly where it fails): the scalar read now from a held
    tensor; any other value as it is."""
    return value.item() if _is_tensor(value) else value


def where_ok(condition, *values):
    """Whether ``torch.where`` over ``values`` gives exactly what the original branch gives.

    ``condition`` is the (tensor) branch condition, or a tuple of them for a nested or
    ``elif`` tree; ``values`` are every branch's value of one variable (or return).
    True iff:

    * every value is a tensor, all of one shape, dtype and device (``torch.where`` would
      otherwise broadcast or type-promote, giving a result that differs from both
      branches);
    * every condition is a bool tensor with a single element, on the values' device, with
      no more dimensions than the values (the original ``if`` calls ``bool()`` on it, which
      only works for one element; more dimensions would broadcast the result's shape);
    * autograd cannot see the unselected branch: not (grad mode is on and a value requires
      grad). Gradients through the unselected side of ``torch.where`` can be NaN (the
      "double where" problem), so training-mode code keeps its original branch.

    When it is False the mended code runs the original branch on the values already
    computed, so the result equals the original's in every case.
    """
    import torch

    if not _selectable(condition, values):
        return False
    if torch.is_grad_enabled() and any(value.requires_grad for value in values):
        return False
    return True


def _selectable(condition, values) -> bool:
    """``values`` are tensors of one shape, dtype and device, and every condition is a bool
    tensor of one element on that device with no more dimensions than the values."""
    import torch

    if not values:
        return False
    first = values[0]
    if not isinstance(first, torch.Tensor):
        return False
    for value in values[1:]:
        if not isinstance(value, torch.Tensor):
            return False
        if value.dtype != first.dtype or value.device != first.device:
            return False
        if value.shape != first.shape:
            return False
    conditions = condition if isinstance(condition, tuple) else (condition,)
    for cond in conditions:
        if not isinstance(cond, torch.Tensor) or cond.dtype != torch.bool:
            return False
        if cond.device != first.device or cond.dim() > first.dim() or cond.numel() != 1:
            return False
    return True


def masked_fill_ok(mask, value, target, *slices) -> bool:
    """Whether ``target[slices].masked_fill_(mask, value)`` may run where the original ran
    it only under ``if mask.any():``, that is, whether it behaves exactly as the original
    for every mask value, all False included.

    With an all-False mask the fill changes no value; what else it does must not show:

    * while compiling only (eagerly False: the original ``if`` runs as written);
    * grad mode off (``torch.is_grad_enabled()``): an in-place update bumps the version
      counter that a backward of a graph which saved ``target`` checks. The mender asks
      this only for tensors the traced code created itself, with no grad-mode change in
      the functions involved, so with grad off nothing saved them;
    * ``mask`` a plain bool tensor on ``target``'s device and ``target`` a plain floating
      tensor: another mask dtype or device raises even when all False;
    * ``value`` a Python number ``target``'s dtype holds (out of range raises even when
      all False: ``1e6`` in float16);
    * ``target`` has at least one dimension per slice (slicing a 0-d tensor raises), and
      ``mask`` broadcasts to ``target[slices]`` without growing it.

    Under Dynamo each test is resolved while tracing: no graph break.
    """
    view = _masked_target(mask, value, target, slices)
    if view is None:
        return False
    mask_shape, shape = tuple(mask.shape), tuple(view.shape)
    if len(mask_shape) > len(shape):
        return False
    return all(m == 1 or m == t for m, t in zip(reversed(mask_shape), reversed(shape)))


def masked_index_ok(mask, value, target, *slices) -> bool:
    """``masked_fill_ok`` for ``target[slices][mask] = value``: the same conditions, except
    that a boolean index must match the leading dimensions of ``target[slices]`` exactly
    (it does not broadcast)."""
    view = _masked_target(mask, value, target, slices)
    if view is None:
        return False
    rank = mask.dim()
    return rank <= view.dim() and tuple(mask.shape) == tuple(view.shape[:rank])


def _masked_target(mask, value, target, slices):
    """``target[slices]`` when the conditions masked_fill_ok and masked_index_ok share hold
    (see masked_fill_ok), else None."""
    if not is_compiling():
        return None
    import torch

    if torch.is_grad_enabled():
        return None
    if type(mask) is not torch.Tensor or mask.dtype != torch.bool:
        return None
    if type(target) is not torch.Tensor or not target.is_floating_point():
        return None
    if mask.device != target.device or not _holds(target.dtype, value):
        return None
    if len(slices) > target.dim():
        return None
    return target[slices] if slices else target


def _holds(dtype, value) -> bool:
    """Whether a tensor of floating ``dtype`` accepts the Python number ``value`` in place
    (torch refuses a finite value beyond the dtype's range)."""
    import torch

    if type(value) not in (bool, int, float):
        return False
    if type(value) is float and (math.isinf(value) or math.isnan(value)):
        return True
    return abs(value) <= torch.finfo(dtype).max


def index_where_ok(buffer, index, holding, failing=()) -> bool:
    """Whether mended code may read ``buffer[index]`` ahead of the branch that reads it, with
    ``index_where``. The original reads it only on its path (every condition of ``holding``
    holds and none of ``failing`` does) and raises IndexError there when ``index`` is out of
    range. True while compiling when:

    * ``buffer`` is a plain tensor with at least one dimension and a first dimension of at
      least one (``buffer[0]``, read off the path, cannot raise);
    * ``index`` is a plain int64 or int32 tensor of any shape (a bool or uint8 index is a
      mask, a floating one raises): a 0-d one picks a row (a scheduler's timestep), one with
      dimensions picks several (``target[preds.topk(k)[1]]``);
    * every condition is a bool tensor of one element (what the original's ``bool()`` reads);
    * everything is on the CPU (an accelerator's assert surfaces later, and its out-of-range
      read is a device-side assert), and a failed range check may be answered by running the
      call again eagerly (``_rerun_safe``: behind a compile boundary, in the call's first
      graph, with no state changed yet).

    Eagerly, and without a compile boundary, it is False: the original statement runs.
    Resolved while tracing: no graph break, nothing in the graph.
    """
    if not is_compiling():
        return False
    torch = sys.modules["torch"]
    conditions = tuple(holding) + tuple(failing)
    if not (_plain_tensor(buffer) and buffer.dim() >= 1 and buffer.shape[0] > 0):
        return False
    row_dtypes = (torch.int64, torch.int32)  # a bool or uint8 index is a mask
    if not (_plain_tensor(index) and index.dtype in row_dtypes):
        return False
    for condition in conditions:
        if not (_one_element(condition) and condition.dtype == torch.bool):
            return False
    on_cpu = all(value.device.type == "cpu" for value in (buffer, index) + conditions)
    return on_cpu and _rerun_safe(_bounded > 0)


def index_where(buffer, index, holding, failing=()):
    """``buffer[index]`` read ahead of its branch, after ``index_where_ok``: on the branch's
    path (see there) ``buffer[index]``, off it ``buffer[0]``, in one graph (Dynamo reads a
    0-d tensor index with ``.item()``, a graph break; a one-element index it keeps in the
    graph). On the path, an index out of range (any element of one with dimensions) fails
    an in-graph assert whose failure makes the compile boundary run the call again eagerly
    (``RERUN_TOKEN``), where the original raises its own IndexError. The read is masked by
    the range too, so the backend's own bounds check (Inductor's RuntimeError) never fires
    before the assert."""
    torch = sys.modules["torch"]
    taken = torch.ones((), dtype=torch.bool)
    for condition in holding:
        taken = torch.logical_and(taken, condition.reshape(()))
    for condition in failing:
        taken = torch.logical_and(taken, torch.logical_not(condition.reshape(())))
    size = buffer.shape[0]
    inside = torch.logical_and(index >= -size, index < size)
    torch._assert_async(torch.logical_or(torch.logical_not(taken), inside.all()), RERUN_TOKEN)
    row = torch.where(torch.logical_and(taken, inside), index, 0)
    if index.dim() == 0:
        return buffer[row.reshape(1)][0]
    return buffer[row]


def cond_ok(condition, *values):
    """Whether mended code may select with ``torch.cond`` over the branches as written. Asked
    after ``where_ok`` refused, for every variable the branches merge: while compiling, with
    grad mode on, the values (one per branch, computed for ``torch.where``) tensors of one
    shape, dtype and device and the condition one bool element; so ``where_ok`` refused
    for gradients only. ``torch.cond``
    differentiates only the branch it selects, so no NaN comes from the other side (the
    branch functions compute their values again; the unused ones are dead code in the
    graph). Eagerly it is False: the original branch runs."""
    import torch

    return is_compiling() and torch.is_grad_enabled() and _selectable(condition, values)


# torch.nn classes whose forward torch.cond traces whole, in any mode: no Python scalar, no
# state written, no randomness.
_COND_SAFE = frozenset((
    "Identity", "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
    "ConvTranspose2d", "ConvTranspose3d", "LayerNorm", "GroupNorm", "RMSNorm",
    "LocalResponseNorm", "ReLU", "ReLU6", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "Hardtanh",
    "Hardswish", "Hardsigmoid", "LeakyReLU", "ELU", "SELU", "CELU", "Softplus", "Softsign",
    "Tanhshrink", "Softmax", "LogSoftmax", "GLU", "PReLU", "Threshold", "Flatten", "Unflatten",
    "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
))
# ... and those only in eval mode (in training they draw random numbers or update buffers).
_COND_SAFE_IN_EVAL = frozenset((
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "BatchNorm1d",
    "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
))


def cond_safe(*modules) -> bool:
    """Whether ``torch.cond`` can trace a branch calling ``modules`` (the submodules a mended
    ``torch.cond`` branch calls): while compiling, each is a torch.nn layer of a class whose
    forward Dynamo traces whole (``_COND_SAFE``; dropout and batch norm in eval mode only), or
    an ``nn.Sequential`` of such layers, with no hooks. ``torch.cond`` fails the compile on a
    branch it cannot trace whole (an ``.item()``, a print, a buffer update), where the
    original only breaks the graph; so anything else (a user's own module, a method) takes
    the original path. Not compiling, it is False. Resolved while tracing: no graph break."""
    if not is_compiling():
        return False
    return all(_cond_safe_module(module, 0) for module in modules)


def _cond_safe_module(module, depth: int) -> bool:
    torch = sys.modules["torch"]
    kind = type(module)
    if not isinstance(module, torch.nn.Module) or depth > 8:
        return False
    if not kind.__module__.startswith("torch.nn.modules."):
        return False
    if module._forward_hooks or module._forward_pre_hooks or module._backward_hooks:
        return False
    if kind is torch.nn.Sequential:
        return all(_cond_safe_module(child, depth + 1) for child in module._modules.values())
    if kind.__name__ in _COND_SAFE:
        return True
    return kind.__name__ in _COND_SAFE_IN_EVAL and not module.training


def cond(pred, true_fn, false_fn, operands):
    """``torch.cond`` for mended code: one branch runs.

    Not compiling: calls ``true_fn(*operands)`` if ``bool(pred)`` else ``false_fn``, exactly
    the original branch. Compiling: ``torch.cond(pred, true_fn, false_fn, operands)``, which
    Dynamo captures as one higher-order op (no break). Both branches must then return
    tensors of one shape and dtype (torch.compile raises otherwise); a non-bool predicate
    is compared with zero first, as ``bool()`` would.
    """
    import torch

    if not torch.compiler.is_compiling():
        return true_fn(*operands) if pred else false_fn(*operands)
    if isinstance(pred, torch.Tensor) and pred.dtype != torch.bool:
        pred = pred != 0
    return torch.cond(pred, true_fn, false_fn, operands)
