"""[Defer]: print, logging and warnings calls recorded while tracing and replayed after the
compiled call (``records.flush``); eagerly, made at once, exactly as the original made them.
Also the calls of a deferred branch (src/rewrite/defer/branch.cpp), recorded with the
branch's condition.
"""

from __future__ import annotations

import sys
import types

from .._core import RUNTIME_NAME as _RUNTIME_NAME
from . import state
from .records import (
    _apply_formats,
    _conversions,
    _item,
    _flush_and_replay,
    _recordable,
    _replay,
    _replay_alone,
    _replay_alone_impl,
    _replay_in_order,
    _snapshot,
    flush,
)
from .sites import _traced_site
from .tracing import _asked_while_tracing, _one_element, is_compiling, is_exporting, mended_tx


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
    ``defer_format(site, print, ((0, "loss {0:.3f}"),), (loss,), end="")``. A template of
    ``None`` hands the one value on itself, converted: ``logger.info("loss %.4f",
    loss.item())`` becomes ``defer_format(site, logger.info, ((1, None, (0,)),), "loss %.4f",
    (loss,))``, so the logger formats the number as the original's did.
    """
    _defer(site, callee, formats, args, kwargs)


def defer_within(site, callee, /, *args, **kwargs):
    """``defer`` for a call inside a ``with`` block of a context manager the mender does not
    know, which may swap ``sys.stdout`` or ``sys.stderr`` until it exits (and read back what
    was written). The call is deferred as ``defer`` defers it only while both streams are
    those of the running compile boundary's call (``state.streams``: Dynamo resolves the
    test while tracing, a guard and no graph code). Otherwise, or with no boundary running,
    it is made at once (while compiling, a graph break, as the original's), and without
    replaying the pending records first: they were made where output went to the
    boundary's streams, and replayed now they would go where this call's output goes. The
    other changes such a manager may make to where output goes (logging's levels, handlers,
    ``logging.disable``, warning filters) Dynamo does not trace: a frame that makes them runs
    eagerly."""
    _defer_within(site, callee, (), args, kwargs)


def defer_format_within(site, callee, formats, /, *args, **kwargs):
    """``defer_format`` inside a ``with`` block, as ``defer_within``."""
    _defer_within(site, callee, formats, args, kwargs)


def _defer_within(site, callee, formats, args, kwargs):
    streams = state.streams
    if streams is not None and sys.stdout is streams[0] and sys.stderr is streams[1]:
        _defer(site, callee, formats, args, kwargs)
    elif is_compiling():
        _replay_alone_impl(site, callee, args, kwargs, formats)
    else:
        _replay_alone(site, callee, args, kwargs, formats)


def _defer(site, callee, formats, args, kwargs):
    if not is_compiling():
        # records of compiled code earlier in this call come first
        _flush_and_replay(site, callee, args, kwargs, formats)
        return
    if is_exporting():
        _dropped_by_export(site)
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
    state.records.append((traced, callee, _snapshot(args), _snapshot(kwargs), formats))


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
    if not all(
        _plain_module(m) for _, _, *modules in helpers for m in (modules[0]() if modules else ())
    ):
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
    "parameters",
    "named_parameters",
    "buffers",
    "named_buffers",
    "children",
    "named_children",
    "modules",
    "named_modules",
    "_named_members",
    "__getattr__",
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
    if is_exporting():
        _dropped_by_export(site)
        return
    traced, args, kwargs = _traced_site(site, callee, args, kwargs)
    if (
        traced is None
        or not _recordable(args, kwargs)
        or not _items_convertible(formats, args, kwargs)
    ):
        # Made now, as the original made it, if the condition holds (a graph break there);
        # one that is not a single element was tested by the if as written.
        if not _one_element(condition) or condition:
            _replay_in_order(site, callee, args, kwargs, formats)
        return
    if not _one_element(condition):  # the if tested the condition as written
        state.records.append((traced, callee, _snapshot(args), _snapshot(kwargs), formats))
        return
    record = (
        condition.reshape(()).clone(),
        traced,
        callee,
        _snapshot(args),
        _snapshot(kwargs),
        formats,
    )
    state.records.append((None, _replay_when, record, {}, ()))


def push_condition(condition) -> None:
    """Before a helper call in the body of a deferred branch (see ``defer_branch``):
    ``pop_condition(push_condition(c) or helper(...))``. While compiling, the helper's
    deferred calls are recorded with ``condition`` (and the conditions of the branches
    around it), to be replayed only if it holds; eagerly nothing. The helper is called by
    the mended function itself, so its frames are the original's."""
    if not is_compiling():
        return
    if not _one_element(condition):  # the if tested it as written
        state.conditions.append(None)
        return
    state.conditions.append(_under_ambient(condition).reshape(()))


def _ambient_condition():
    """The condition the records of a deferred branch's helper are made under, or None."""
    return state.conditions[-1] if state.conditions else None


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
        state.conditions.pop()
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
        tx = mended_tx(InstructionTranslator.current_tx().output.current_tx)
        return (
            tx is not None
            and code.co_filename == tx.f_code.co_filename
            and code.co_firstlineno == line
            and _RUNTIME_NAME in code.co_names
        )
    except Exception:  # noqa: BLE001 (another torch: the helper runs if the condition holds)
        return False


@_asked_while_tracing
def _dropped_by_export(site) -> bool:
    """Asked while ``torch.export`` traces (strict: Dynamo calls it; non-strict: it runs):
    names the deferred call at ``site``, which the exported program will not make (a graph
    holds no print, log or warning; ``graphmend.export`` reports it). Nothing is recorded:
    no compile boundary replays an exported program's records."""
    state.export_dropped.append(tuple(site))
    return True


def _replay_when(condition, site, callee, args, kwargs, formats):
    if condition:
        args, kwargs = _apply_formats(formats, args, kwargs)
        _replay(site, callee, args, kwargs)


def _items_convertible(formats, args, kwargs) -> bool:
    """Whether every value a format converts (``.item()``, ``float()``, ``int()``,
    ``bool()``) is a one-element tensor, as the original's conversion needs, or, for a
    builtin, a Python number: else the call runs at once and converts (or raises) where it
    did."""
    for key, _template, *items in formats:
        values = args[key] if isinstance(key, int) else kwargs[key]
        for index, how in _conversions(items[0] if items else ()).items():
            value = values[index]
            number = how is not _item and type(value) in (int, float, bool)
            if not (_one_element(value) or number):
                return False
    return True
