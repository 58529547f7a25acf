"""runtime.captured_item / captured_int / captured_float ([Scalar]'s captured reads): the read
asks Dynamo to trace its frame with capture_scalar_outputs, for that frame only; a frame
whose trace fails with the option is traced again without it and keeps the original's
break; eagerly the read is exactly the original's."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch._dynamo.testing import CompileCounter

from graphmend import runtime
from graphmend.runtime import state

PRINTED: list = []


@pytest.fixture(autouse=True)
def fresh_capture_state():
    torch._dynamo.reset()
    state.capture_frames.clear()
    state.capture_refused.clear()
    yield
    torch._dynamo.reset()
    state.capture_frames.clear()
    state.capture_refused.clear()


def padded_mean(x, lengths, n):
    max_len = runtime.captured_int(lengths.max())
    x = F.pad(x, (0, max_len - x.shape[-1]))
    return x.sum(-1) / max(runtime.captured_item(n), 1) * runtime.captured_float(n.float())


def original_padded_mean(x, lengths, n):
    max_len = int(lengths.max())
    x = F.pad(x, (0, max_len - x.shape[-1]))
    return x.sum(-1) / max(n.item(), 1) * float(n.float())


_SEEDED = torch.Generator().manual_seed(0)  # the same inputs whatever ran before
CALLS = [
    (torch.randn(2, 4, generator=_SEEDED), torch.tensor([5, 6]), torch.tensor(3)),
    (torch.randn(2, 4, generator=_SEEDED), torch.tensor([7, 4]), torch.tensor(0)),
    (torch.randn(2, 4, generator=_SEEDED), torch.tensor([4, 4]), torch.tensor(9)),
]


def test_eagerly_each_read_is_the_original():
    t = torch.tensor(2.5)
    assert runtime.captured_item(t) == t.item() and type(runtime.captured_item(t)) is float
    assert runtime.captured_int(t) == 2 and runtime.captured_float(torch.tensor(3)) == 3.0
    assert runtime.captured_item(np.float32(1.5)) == 1.5  # any object's .item()
    with pytest.raises(RuntimeError):
        runtime.captured_item(torch.ones(2))  # as the original raises
    assert not state.capture_frames


@pytest.mark.parametrize("backend", ["eager", pytest.param("inductor", marks=pytest.mark.inductor)])
def test_reads_that_size_and_scale_compile_to_one_graph(backend):
    counter = CompileCounter()
    compiled = torch.compile(padded_mean, backend=counter if backend == "eager" else "inductor")
    for args in CALLS:
        # Inductor may fuse the sum, divide and multiply, rounding the last bit differently
        torch.testing.assert_close(compiled(*args), original_padded_mean(*args))
    if backend == "eager":
        # one graph for every call: the values are symbols, not constants to recompile on
        assert counter.frame_count == 1
    assert [code.co_name for code in state.capture_frames.values()] == ["padded_mean"]
    assert not torch._dynamo.config.capture_scalar_outputs  # for that frame only


def test_other_frames_keep_dynamos_default():
    torch.compile(padded_mean, backend="eager")(*CALLS[0])
    counter = CompileCounter()
    compiled = torch.compile(original_padded_mean, backend=counter)
    torch.testing.assert_close(compiled(*CALLS[0]), original_padded_mean(*CALLS[0]))
    assert counter.frame_count == 4  # the original breaks at each of its three reads


def _refuses_capture(gm, example_inputs):
    """A backend that cannot compile what Dynamo traces with capture_scalar_outputs."""
    if torch._dynamo.config.capture_scalar_outputs:
        raise NotImplementedError("no captured scalars here")
    return gm.forward


def test_a_frame_that_fails_with_capture_is_traced_without_it_and_runs_once():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return _refuses_capture(gm, example_inputs)

    def counted(x, lengths, n):
        PRINTED.append("ran")
        return padded_mean(x, lengths, n)

    PRINTED.clear()
    compiled = torch.compile(counted, backend=backend)
    for args in CALLS:
        torch.testing.assert_close(compiled(*args), original_padded_mean(*args))
    assert PRINTED == ["ran"] * len(CALLS)  # each call ran the program once
    assert "counted" in [code.co_name for code in state.capture_refused.values()]
    assert len(graphs) > 1  # the original's breaks: a graph before and after each read


def test_fullgraph_captures_without_asking():
    compiled = torch.compile(padded_mean, backend="eager", fullgraph=True)
    torch.testing.assert_close(compiled(*CALLS[0]), original_padded_mean(*CALLS[0]))
    assert not state.capture_frames  # Dynamo captures scalars under fullgraph anyway


def test_inlined_read_asks_for_the_compiled_frame():
    def outer(x, lengths, n):
        return padded_mean(x * 2, lengths, n) + 1

    counter = CompileCounter()
    compiled = torch.compile(outer, backend=counter)
    for args in CALLS:
        x, lengths, n = args
        torch.testing.assert_close(compiled(*args), original_padded_mean(x * 2, lengths, n) + 1)
    assert counter.frame_count == 1
    assert [code.co_name for code in state.capture_frames.values()] == ["outer"]


def test_dynamo_checks_an_assert_on_a_captured_float_otherwise():
    """Why [Scalar] captures nothing in a file holding an assert on a scalar read
    (tests/cases/scalar/decline_captured_assert.py): under the option, Dynamo raises
    RuntimeError where the assert raises AssertionError."""

    namespace: dict = {}  # compiled here: pytest rewrites the asserts of test files
    exec(
        "def check(x, t):\n    assert t.item() > 0, 'weight must be positive'\n    return x + 1\n",
        namespace,
    )
    check = namespace["check"]

    with pytest.raises(AssertionError, match="weight must be positive"):
        check(torch.ones(2), torch.tensor(-1.0))
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        with pytest.raises(RuntimeError, match="Runtime assertion failed"):
            torch.compile(check, backend="eager")(torch.ones(2), torch.tensor(-1.0))
