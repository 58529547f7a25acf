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
