"""[Where] and torch.cond: the checks mended code asks before it selects between branches
with ``torch.where`` or ``torch.cond`` instead of branching in Python, and ``cond`` itself.
Everything the checks look at is a static fact under Dynamo (Python types, shapes, dtypes,
devices, grad mode, requires_grad), so calling one inside a compiled region never breaks
the graph; it only adds guards. Also the membership tests (``contains``) of the conditions
that [Where] and deferred branches rewrite.
"""

from __future__ import annotations

import math
import numbers
import sys

from . import state
from .tracing import _one_element, _plain_tensor, is_compiling
from .trap import RERUN_TOKEN, _rerun_safe


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
    return isinstance(
        element, (torch.Tensor, numbers.Number, torch.SymInt, torch.SymFloat, torch.SymBool)
    )


def where_ok(condition, *values, gradient_safe: bool = False):
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
      "double where" problem), so training-mode code keeps its original branch, unless
      the mender proved every value ``gradient_safe``: every local derivative finite (a
      clamp, a relu, the value from before the if), so the zero gradient sent into the
      unselected side stays zero and the selected side's gradient is the original's.

    When it is False the mended code runs the original branch on the values already
    computed, so the result equals the original's in every case.
    """
    import torch

    if not _selectable(condition, values):
        return False
    if gradient_safe:
        return True
    if torch.is_grad_enabled() and any(value.requires_grad for value in values):
        return False
    return True


def record_ok(condition) -> bool:
    """Whether a branch on ``condition`` that only records calls (``defer_when``) may run
    whatever the condition: every condition is a bool tensor of one element, which the
    original ``if`` calls ``bool()`` on and a record replays on."""
    import torch

    conditions = condition if isinstance(condition, tuple) else (condition,)
    return all(
        isinstance(cond, torch.Tensor) and cond.dtype == torch.bool and cond.numel() == 1
        for cond in conditions
    )


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
    return on_cpu and _rerun_safe(state.bounded > 0)


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


def cond_ok(condition, *values, gradient_safe: bool = False):
    """Whether mended code may select with ``torch.cond`` over the branches as written. Asked
    after ``where_ok`` refused, for every variable the branches merge: while compiling, with
    grad mode on, the values (one per branch, computed for ``torch.where``) tensors of one
    shape, dtype and device and the condition one bool element; so ``where_ok`` refused
    for gradients only (``gradient_safe``: where_ok did not refuse, so this is not asked). ``torch.cond``
    differentiates only the branch it selects, so no NaN comes from the other side (the
    branch functions compute their values again; the unused ones are dead code in the
    graph). Eagerly it is False: the original branch runs."""
    import torch

    return is_compiling() and torch.is_grad_enabled() and _selectable(condition, values)


# torch.nn classes whose forward torch.cond traces whole, in any mode: no Python scalar, no
# state written, no randomness.
_COND_SAFE = frozenset(
    (
        "Identity",
        "Linear",
        "Bilinear",
        "Conv1d",
        "Conv2d",
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
        "LayerNorm",
        "GroupNorm",
        "RMSNorm",
        "LocalResponseNorm",
        "ReLU",
        "ReLU6",
        "GELU",
        "SiLU",
        "Mish",
        "Tanh",
        "Sigmoid",
        "Hardtanh",
        "Hardswish",
        "Hardsigmoid",
        "LeakyReLU",
        "ELU",
        "SELU",
        "CELU",
        "Softplus",
        "Softsign",
        "Tanhshrink",
        "Softmax",
        "LogSoftmax",
        "GLU",
        "PReLU",
        "Threshold",
        "Flatten",
        "Unflatten",
        "AvgPool1d",
        "AvgPool2d",
        "AvgPool3d",
        "AdaptiveAvgPool1d",
        "AdaptiveAvgPool2d",
        "AdaptiveAvgPool3d",
        # losses whose forward is one functional call on the operands (their checks read
        # shapes and options only, resolved while tracing)
        "L1Loss",
        "MSELoss",
        "NLLLoss",
        "CrossEntropyLoss",
        "BCELoss",
        "BCEWithLogitsLoss",
        "SmoothL1Loss",
        "HuberLoss",
        "SoftMarginLoss",
        "MultiLabelSoftMarginLoss",
        "CosineEmbeddingLoss",
        "MarginRankingLoss",
        "HingeEmbeddingLoss",
        "TripletMarginLoss",
    )
)
# ... and those only in eval mode (in training they draw random numbers or update buffers).
_COND_SAFE_IN_EVAL = frozenset(
    (
        "Dropout",
        "Dropout1d",
        "Dropout2d",
        "Dropout3d",
        "AlphaDropout",
        "BatchNorm1d",
        "BatchNorm2d",
        "BatchNorm3d",
        "InstanceNorm1d",
        "InstanceNorm2d",
        "InstanceNorm3d",
    )
)


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


def update_where_ok(condition, *updates) -> bool:
    """Whether mended code may run the element-wise in-place updates of ``if condition:``
    on copies of their targets and keep the updated values with ``torch.where``, whatever
    the condition (where/inplace.cpp); ``updates`` holds ``(target, *arguments)`` of each.
    True while compiling with grad mode off (an update bumps the target's version counter
    even where the condition is False; the mender proves each target a tensor the traced
    code created), for a plain bool ``condition`` of one element (what the original's
    ``bool()`` reads) on every target's device with no more dimensions than any target (the
    selection then has the target's shape), plain tensor targets, and arguments that cannot
    make the update raise: Python numbers the target's dtype takes in place (an int, or a
    float for a floating target) and tensors of the target's dtype and device whose shape
    broadcasts to the target's. Eagerly False: the original ``if`` runs. Static under
    Dynamo."""
    if not is_compiling():
        return False
    import torch

    if torch.is_grad_enabled() or not _plain_tensor(condition):
        return False
    if not _one_element(condition) or condition.dtype != torch.bool:
        return False
    for target, *arguments in updates:
        if not _plain_tensor(target) or target.device != condition.device:
            return False
        if condition.dim() > target.dim() or target.dtype == torch.bool:
            return False
        if not all(_updates_in_place(target, argument) for argument in arguments):
            return False
    return True


def _updates_in_place(target, argument) -> bool:
    """Whether ``argument`` of an element-wise in-place update of ``target`` cannot make it
    raise (see update_where_ok)."""
    import torch

    if type(argument) is int:
        return True
    if type(argument) is float:
        return target.is_floating_point()
    if not _plain_tensor(argument):
        return False
    if argument.dtype != target.dtype or argument.device != target.device:
        return False
    return tuple(torch.broadcast_shapes(target.shape, argument.shape)) == tuple(target.shape)


def selecting(condition, *assumed) -> bool:
    """Whether ``select`` may compute both sides of a conditional expression inside an
    expression (where/select.cpp): while compiling with grad mode off (a value's gradient
    through the unselected side of torch.where can be NaN), for a bool ``condition`` of one
    element, and every value the mender took for a tensor (``assumed``: to prove the sides
    pure) a plain tensor. Otherwise the caller's own conditional expression runs. Static
    under Dynamo."""
    if not is_compiling() or not _plain_tensor(condition) or not _one_element(condition):
        return False
    import torch

    if torch.is_grad_enabled() or condition.dtype != torch.bool:
        return False
    return all(_plain_tensor(value) for value in assumed)


def select(condition, on_true, on_false):
    """``on_true() if condition else on_false()`` after ``selecting``: both sides computed
    and selected with ``torch.where`` where ``where_ok`` says it gives exactly the picked
    value (tensors of one shape, dtype and device); otherwise the picked one (a break while
    compiling, as Python's conditional expression)."""
    picked, other = on_true(), on_false()
    if where_ok(condition, picked, other):
        import torch

        return torch.where(condition, picked, other)
    return picked if condition else other
