"""[Trap]: a guard that raises (``if <tensor cond>: raise E("msg")``, a tensor ``assert``,
``torch._check_tensor_all``) as an in-graph assert while compiling, whose failure the compile
boundary turns back into the original exception (``translate``); and ``rerun_if``, whose
failure makes the boundary run the call again eagerly (``rerun``).

A compiled trap is ``torch._assert_async(ok, token)``. The token names the exception class
and message in letters, digits and ``_`` only: backends write the message into generated
source (Inductor's C++ on CPU, unescaped), so user text there could break their compile.
``translate`` accepts an exception only when it is exactly what a failed ``_assert_async``
raises at run time: a plain RuntimeError whose whole text is a token.
"""

from __future__ import annotations

import builtins
import importlib
import re
import sys
from typing import Optional

from . import state
from .tracing import (
    _asked_while_tracing,
    _disabled,
    _is_tensor,
    _one_element,
    is_compiling,
    is_exporting,
    mended_tx,
)


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
    return (
        f"{TRAP_TOKEN_PREFIX}{where}_n"
        if message is None
        else f"{TRAP_TOKEN_PREFIX}{where}_m{_hex(message)}"
    )


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
    if not _dynamo_tracing() and is_exporting():
        return _exported_graph_changed_state()
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator
        from torch._dynamo.variables.base import AttributeMutationNew, ValueMutationNew
        from torch._dynamo.variables.nn_module import (
            NNModuleVariable,
            UnspecializedNNModuleVariable,
        )

        output = InstructionTranslator.current_tx().output
        effects = output.side_effects
        for variable in effects.id_to_variable.values():
            if not isinstance(variable, (NNModuleVariable, UnspecializedNNModuleVariable)):
                continue  # a context variable set for the call and reset after it, say
            created = isinstance(variable.mutation_type, (AttributeMutationNew, ValueMutationNew))
            if not created and effects.is_modified(variable):  # a module from before the call
                return True
        torch = sys.modules["torch"]
        # Module tensors are placeholders under torch.compile; get_attr nodes under strict
        # torch.export.
        graph = output.graph
        for node in (*graph.find_nodes(op="placeholder"), *graph.find_nodes(op="get_attr")):
            value = node.meta.get("example_value")
            if isinstance(value, torch.Tensor) and value._version > 0:
                return True
        return False
    except Exception:  # noqa: BLE001 (another torch: take the graph break)
        return True


def _dynamo_tracing() -> bool:
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        InstructionTranslator.current_tx()
        return True
    except Exception:  # noqa: BLE001 (no translator: Dynamo is not tracing)
        return False


# What a non-strict export's graph may hold besides torch operators: Python's operators on
# the outputs (tuple items) and grad-mode switches, none of which changes state.
_STATELESS_CALLS = ("_operator", "operator")


def _exported_graph_changed_state() -> bool:
    """Non-strict ``torch.export`` (Python runs the program, a proxy mode records the graph):
    whether the graph recorded so far changes state, an operator that mutates (``add_``,
    ``copy_``, BatchNorm's running statistics) on any tensor. An exported program writes
    mutated inputs and buffers back at its end, so a failed assert after one would lose the
    change the original made before raising. A call that is not a plain operator (a
    higher-order one, ``torch.cond``) counts as a change: the safe answer. Attribute changes
    (``self.steps += 1``) are not in an exported program at all, assert or not."""
    try:
        from torch.fx.experimental.proxy_tensor import get_proxy_mode

        torch = sys.modules["torch"]
        mode = get_proxy_mode()
        if mode is None:
            return True
        for node in mode.tracer.graph.nodes:
            if node.op != "call_function":
                continue
            target = node.target
            if isinstance(target, torch._ops.OpOverload):
                if target._schema.is_mutable:
                    return True
            elif getattr(target, "__module__", None) not in _STATELESS_CALLS and (
                target is not torch._C._set_grad_enabled
            ):
                return True
        return False
    except Exception:  # noqa: BLE001 (another torch: take the original's path)
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
        if site in _EAGER_GUARDS or id(output.root_tx.f_code) not in state.entry_codes:
            return False
        before = _state_marks(output)
        output.add_graph_finalizer(lambda _gm: _check_after_guard(output, site, before))
        return True
    except Exception:  # noqa: BLE001 (another torch: take the graph break)
        return False


def _guard_site(tx):
    """The mended function calling the guard, as its code and line."""
    tx = mended_tx(tx)
    return (tx.f_code, tx.lineno)


def _state_marks(output):
    """The graph's state changes so far: the version of each input tensor, and the objects
    from before the call that Dynamo will modify (the runtime's record lists aside;
    an object the trace created is seen only through one from before that holds it)."""
    torch = sys.modules["torch"]
    versions = {}
    for node in output.graph.find_nodes(op="placeholder"):
        value = node.meta.get("example_value")
        if isinstance(value, torch.Tensor):
            versions[node.name] = value._version
    from torch._dynamo.variables.base import AttributeMutationNew, ValueMutationNew

    effects = output.side_effects
    ours = {id(state.records), id(state.conditions)}
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
        if not _trapped(failed, exc_type, message):
            _check_now(failed, exc_type, message)  # one graph break, checked eagerly
        return
    _check(failed, exc_type, message)


def _trapped(failed, exc_type, message):
    """``guard``'s compiled forms (see there), while tracing: True when the guard is in the
    graph (an in-graph assert, or a record the flush raises from); False where it must be
    checked eagerly (state changed or records pending, and no flush to raise from)."""
    if state.records or _region_changed_state():
        # A failed in-graph assert aborts the graph: the records deferred before the guard
        # and the state the graph changed so far (Inductor writes mutated inputs back at the
        # end; Dynamo applies attribute changes after the graph) would be lost.
        if state.bounded and _raise_deferrable():
            # The guard becomes a record of its own: the graph completes, and flush replays
            # the records before it, then raises (see _raise_pending).
            record = (failed.reshape(()).clone(), exc_type, message)
            state.records.append((None, _raise_pending, record, {}, ()))
            return True
        return False
    torch = sys.modules["torch"]
    torch._assert_async(torch.logical_not(failed.reshape(())), _token(exc_type, message))
    return True


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
    if _rerun_ready(condition):
        torch = sys.modules["torch"]
        torch._assert_async(torch.logical_not(condition.reshape(())), RERUN_TOKEN)
        return False
    return condition


def _rerun_ready(condition) -> bool:
    """Whether ``rerun_if`` and ``rerun_unless`` may assert ``condition`` in the graph: while
    compiling, a one-element tensor on the CPU (an accelerator's assert would surface later),
    where a failure may run the call again (``_rerun_safe``)."""
    return (
        is_compiling()
        and _one_element(condition)
        and condition.device.type == "cpu"
        and _rerun_safe(state.bounded > 0)
    )


def rerun_unless(condition):
    """The test of an assert whose message the in-graph forms cannot carry (a tensor, an
    f-string of tensor values, a call): ``assert rerun_unless(c), message``.

    ``rerun_if`` for the assert's sense: not compiling, ``condition`` itself, so the assert
    tests it and evaluates the message only where it fails, as the original does. Compiling,
    with a one-element tensor on the CPU, where nothing the program could see has changed yet
    in the call (``_rerun_safe``): True, with an in-graph assert that the condition holds,
    whose failure runs the whole call again eagerly, where the original assert raises with
    its message. Otherwise ``condition``: the assert tests it (a graph break, as the
    original's).
    """
    if _rerun_ready(condition):
        sys.modules["torch"]._assert_async(condition.reshape(()).bool(), RERUN_TOKEN)
        return True
    return condition


# A failed rerun_if: the compile boundary runs the call again eagerly (see ``rerun``).
RERUN_TOKEN = TRAP_TOKEN_PREFIX + "rerun"


@_asked_while_tracing
def _rerun_safe(bounded: bool) -> bool:
    """Asked while tracing: whether a failure at this point may be answered by running the
    call again eagerly. True behind a compile boundary (``bounded``) whose entry is the
    compiled frame (so this graph is the call's first: no earlier graph or eager code of the
    call ran), for a module entry without hooks, when the graph has changed no state so far
    (``_region_changed_state``)."""
    try:
        from torch._dynamo.symbolic_convert import InstructionTranslator

        root = InstructionTranslator.current_tx().output.root_tx
        if not bounded or id(root.f_code) not in state.entry_codes or _region_changed_state():
            return False
        module = state.entry_modules.get(id(root.f_code))
        if module is not None and _has_hooks(module()):
            return False
        if not state.rerun_guards:
            state.traced_random_state = random_state()
            state.rerun_guards = True
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
    shared = (
        "_global_forward_hooks",
        "_global_forward_pre_hooks",
        "_global_backward_hooks",
        "_global_backward_pre_hooks",
    )
    return any(getattr(module, name, None) for name in own) or any(
        getattr(hooks, name, None) for name in shared
    )


def random_state():
    """The default generators' states (CPU, and each CUDA device's once CUDA is in use)."""
    torch = sys.modules["torch"]
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    return torch.get_rng_state(), cuda


def set_random_state(saved) -> None:
    torch = sys.modules["torch"]
    cpu, cuda = saved
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
    state.records.clear()
    start = random if random is not None else state.traced_random_state
    if start is not None:
        set_random_state(start)
    return call(*args, **kwargs)


def _raise_pending(failed, exc_type, message):
    """A guard recorded behind deferred records (see ``guard``), replayed by ``flush``: when
    it failed, the records made after it are dropped (the original never made them) and the
    original guard's exception is raised."""
    if failed:
        state.records.clear()
        _check(True, exc_type, message)


def check_assert(ok, message=None):
    """``assert ok, message`` as mended code writes it: ``assert check_assert(ok, message),
    message`` (the message a string literal, written twice).

    Compiling, with ``ok`` a one-element tensor: an in-graph assert whose failure the compile
    boundary turns into ``AssertionError(message)`` (Dynamo's own rewrite of a tensor
    ``assert`` raises RuntimeError instead), and True. Anywhere else (not compiling, another
    value, or where the guard cannot be in the graph: ``guard``) ``ok`` itself, which the
    enclosing ``assert`` tests as the original did, in the caller's frame: a graph break
    exactly where the original broke, and ``AssertionError(message)`` from the statement's
    own message. The statement stays an ``assert``, so ``python -O`` removes it whole.
    """
    if is_compiling() and _one_element(ok) and _traceable_message(message):
        failed = sys.modules["torch"].logical_not(ok.reshape(()))
        if _trapped(failed, AssertionError, message):
            return True
    return ok


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
        and not state.records
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
