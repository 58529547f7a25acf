"""The records of deferred calls ([Defer], and the guards [Trap] records behind them): how a
call's arguments are snapshotted, and how ``flush`` replays the records as the original calls
would have run (log records and warnings with the original call's site).

The record list itself is ``state.records``.
"""

from __future__ import annotations

import logging
import sys
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import state
from .sites import (
    _BOUNDARY_CALLER,
    _at_level_one,
    _boundary_caller,
    _caller_frame,
    _frame_site,
    _warning_level,
)
from .state import Record
from .tracing import _disabled, _is_tensor


_PLAIN_TYPES = (type(None), bool, int, float, complex, str, bytes)


def _snapshot_safe(value: Any) -> bool:
    """Whether ``value`` can be recorded now and formatted later with the same text.

    True for tensors (cloned), plain immutable scalars and strings, classes (a warning
    category), torch dtypes, devices, sizes, enum members whose text is the enum module's
    (``_plain_enum_member``), and lists/tuples/dicts of such values (copied). Anything else
    (a user object whose ``__str__`` may read mutable state, a file, a module) is not.
    """
    if type(value) in _PLAIN_TYPES or isinstance(value, type):
        return True
    if _plain_enum_member(value):
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


def _plain_enum_member(value: Any) -> bool:
    """An enum member whose class formats it with the enum module's methods (or its plain
    mixin type's: ``IntEnum``, ``class Phase(str, Enum)``), of a snapshot-safe value: its text
    is fixed by its name and value, which a member keeps. Dynamo resolves every step of this
    while tracing (no graph break)."""
    enum = sys.modules.get("enum")
    if enum is None or not isinstance(value, enum.Enum):
        return False
    cls = type(value)
    methods = (getattr(cls, name, None) for name in ("__str__", "__format__", "__repr__"))
    return all(_enum_text_method(method) for method in methods) and _snapshot_safe(value.value)


def _enum_text_method(method: Any) -> bool:
    return (
        getattr(method, "__module__", None) == "enum"
        or getattr(method, "__objclass__", None) in _PLAIN_TYPES
    )


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


# How the original converted a value it formats (a spec's third element names them): an index
# alone, `.item()`; `(index, name)`, the builtin of that name (`float(loss)`).
_BUILTIN_CONVERSIONS: Dict[str, Callable[[Any], Any]] = {"float": float, "int": int, "bool": bool}


def _conversions(items) -> Dict[int, Callable[[Any], Any]]:
    """Index -> the conversion the original applied to that value (see above)."""
    out: Dict[int, Callable[[Any], Any]] = {}
    for item in items:
        if isinstance(item, tuple):
            out[item[0]] = _BUILTIN_CONVERSIONS[item[1]]
        else:
            out[item] = _item
    return out


def _item(value):
    return value.item()


def _apply_formats(formats, args, kwargs):
    if not formats:
        return args, kwargs
    args = list(args)
    kwargs = dict(kwargs)
    for key, template, *items in formats:
        target = args if isinstance(key, int) else kwargs
        values = target[key]
        if items:  # the values the original converted in the format, converted now
            how = _conversions(items[0])
            values = tuple(how[i](v) if i in how else v for i, v in enumerate(values))
        # no template: the argument was `X.item()` itself, handed on as the number
        target[key] = values[0] if template is None else template.format(*values)
    return tuple(args), kwargs


def _flush_and_replay(site, callee, args, kwargs, formats=()):
    """A call made at once, after the records made before it (its output keeps its order)."""
    flush()
    _replay_alone(site, callee, args, kwargs, formats)


def _replay_alone(site, callee, args, kwargs, formats=()):
    """A call made at once without replaying the pending records first (``defer.
    defer_within``: they were made where output went to the compile boundary's streams, and
    the call is made where it goes elsewhere)."""
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


_call_now_impl = _disabled(_call_now)
_flush_and_replay_impl = _disabled(_flush_and_replay)
_replay_alone_impl = _disabled(_replay_alone)


def pending() -> List[Record]:
    """The records not replayed yet (a copy), oldest first."""
    return list(state.records)


def discard() -> None:
    """Drops the pending records without replaying them."""
    state.records.clear()


def flush() -> None:
    """Replays the pending records in order and clears them.

    Call from eager code after the compiled callable returns or raises (see the module
    docstring). Each record is taken off the list before it runs, so a replayed call that
    raises leaves the later records pending for the next ``flush`` and does not repeat
    itself; the exception propagates.
    """
    while state.records:
        site, callee, args, kwargs, formats = state.records.pop(0)
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
