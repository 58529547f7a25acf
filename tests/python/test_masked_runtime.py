"""runtime.masked_reduce: the dense form equals the selection's reduction while compiling,
and an index that is not a same-shape bool mask takes the original path."""

import pytest
import torch

from graphmend import runtime


def _compiled(op):
    def f(x, m):
        return runtime.masked_reduce(x, m, op)

    return torch.compile(f, backend="eager", fullgraph=False)


@pytest.mark.parametrize("op", ["max", "min"])
def test_empty_message_is_torchs(op):
    with pytest.raises(RuntimeError) as original:
        getattr(torch.tensor([], dtype=torch.int64), op)()
    assert str(original.value) == runtime.masked._empty_message(op)


def test_integer_index_runs_the_original():
    torch._dynamo.reset()
    x = torch.tensor([3, -1, 0, 7])
    index = torch.tensor([0, 2, 2])
    assert torch.equal(_compiled("sum")(x, index), x[index].sum())
    assert torch.equal(_compiled("max")(x, index), x[index].max())


def test_dense_only_where_exact():
    x = torch.tensor([1, 2])
    mask = torch.tensor([True, False])
    assert not runtime.masked._dense_ok(x, mask, "sum")  # eagerly: the original
    torch._dynamo.reset()
    answers = []

    def probe(x, m):
        answers.append(runtime.masked._dense_ok(x, m, "sum"))
        answers.append(runtime.masked._dense_ok(x.float(), m, "sum"))
        answers.append(runtime.masked._dense_ok(x.float(), m, "any"))
        answers.append(runtime.masked._dense_ok(x, m.long(), "sum"))
        answers.append(runtime.masked._dense_ok(x, m[:1], "sum"))
        answers.append(runtime.masked._dense_ok(x.to(torch.uint8), m, "any"))  # bool compiled
        answers.append(runtime.masked._dense_ok(x.to(torch.uint8), m, "sum"))
        return x + 1

    torch.compile(probe, backend="eager")(x, mask)
    assert answers == [True, False, True, False, False, False, True]


def _asked_while_compiling(check, *args, **kwargs):
    """What ``check(*args, **kwargs)`` answers inside a compiled call (fullgraph: it must
    not break), and eagerly."""
    torch._dynamo.reset()

    def probe(x):
        return x + 1 if check(*args, **kwargs) else x - 1

    compiled = torch.compile(probe, backend="eager", fullgraph=True)
    eager = check(*args, **kwargs)
    return bool(compiled(torch.zeros(1)).item() == 1), eager


def test_masked_assign_ok_asks_shapes_dtypes_numbers_and_gradients():
    m = torch.tensor([True, False, True])
    t, y = torch.zeros(3, 2), torch.ones(3, 2)
    ok = runtime.masked_assign_ok
    assert _asked_while_compiling(ok, m, t, y) == (True, False)
    assert _asked_while_compiling(ok, m, t, y, numbers=(2, 0.5)) == (True, False)
    refused = [
        (m, t, y, {"numbers": (torch.ones(2),)}),  # a tensor held where a number was
        (m, t, y.double(), {}),  # another dtype: index_put_ raises
        (m, t.long(), y.long(), {}),  # an integer target
        (torch.tensor([True, False]), t, y, {}),  # a mask that does not fit
        (m.int(), t, y, {}),  # not a bool mask
        (m, t, torch.ones(3, 1), {}),  # a source of another shape
    ]
    for mask, target, source, kwargs in refused:
        assert _asked_while_compiling(ok, mask, target, source, **kwargs)[0] is False
    with torch.enable_grad():
        assert _asked_while_compiling(ok, m, t, y.requires_grad_())[0] is False
        assert _asked_while_compiling(ok, m, t, torch.ones(3, 2), guarded=True)[0] is False


def test_update_where_ok_asks_arguments_that_cannot_raise():
    c, t = torch.tensor(True), torch.zeros(3, 4)
    ok = runtime.update_where_ok
    with torch.no_grad():
        assert _asked_while_compiling(ok, c, (t, 2), (t, 0.5), (t, torch.ones(4))) == (True, False)
    refused = [
        (c, (t, torch.ones(3, 4, dtype=torch.float64))),  # another dtype
        (c, (t, torch.ones(2, 3, 4))),  # would grow the target
        (c, (t.long(), 0.5)),  # a float into an integer target
        (c, (t, "floor")),  # not a number or a tensor
        (torch.tensor([True, False]), (t, 2)),  # not one element
        (torch.ones(1, 1, 1, dtype=torch.bool), (torch.zeros(3), 2)),  # more dims than the target
        (torch.tensor(1), (t, 2)),  # not a bool
    ]
    with torch.no_grad():
        for condition, update in refused:
            assert _asked_while_compiling(ok, condition, update)[0] is False
    with torch.enable_grad():  # grad mode on: the original if
        assert _asked_while_compiling(ok, c, (t, 2))[0] is False
