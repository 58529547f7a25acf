"""runtime.index_where_ok and runtime.index_where: a [Where] branch value read by a computed
index ahead of its branch. Where a run-time condition fails (the index a bool, floating or
int16 tensor, the buffer empty or 0-d, no compile boundary), the original
statement runs: nothing of the masked read is in the graph, and the program behaves as the
original. The read is masked by its whole path (no run again for an index off the path), and
an index out of range on the path runs the call again, eagerly, raising the original's
IndexError."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import graphmend  # noqa: E402
import graphmend.runtime as rt  # noqa: E402
from behaviour import program_module  # noqa: E402
from case_files import build, load  # noqa: E402

# The lookup of huggingface/diffusers: src/diffusers/schedulers/scheduling_ddim.py:
# DDIMScheduler.step, over a table of any shape.
PROGRAM = """
import torch
from torch import nn


class Lookup(nn.Module):
    def __init__(self, table):
        super().__init__()
        self.register_buffer("table", table)
        self.register_buffer("default", torch.tensor(1.0))

    def forward(self, index: torch.Tensor):
        value = self.table[index] if index >= 0 else self.default
        return value * 2
"""


@pytest.fixture()
def program(tmp_path):
    with program_module(tmp_path, "index_where_program", PROGRAM) as module:
        yield module


def outcome(call, *args):
    """What call(*args) returns, or the type and first line of what it raises (Dynamo adds
    the user's frames to an exception raised while tracing)."""
    try:
        return ("returned", call(*args))
    except Exception as exc:  # noqa: BLE001
        return ("raised", type(exc), str(exc).split("\n")[0])


def assert_same(expected, actual):
    assert expected[0] == actual[0], (expected, actual)
    if expected[0] == "returned":
        torch.testing.assert_close(actual[1], expected[1], rtol=0, atol=0)
    else:
        assert expected[1:] == actual[1:]


class Graphs:
    """A counting backend: the graphs compiled, and whether one holds the masked read's range
    check (the masked read ran)."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, example_inputs):
        self.graphs.append(gm)
        return gm.forward

    def masked_read(self):
        return any(
            node.target is torch._assert_async for gm in self.graphs for node in gm.graph.nodes
        )


IN_RANGE = (torch.arange(10.0), torch.tensor(3))
FAILING = {
    "bool index": (torch.arange(10.0), torch.tensor(True)),
    "floating index": (torch.arange(10.0), torch.tensor(2.0)),
    "int16 index": (torch.arange(10.0), torch.tensor(2, dtype=torch.int16)),
    "empty buffer": (torch.empty(0), torch.tensor(3)),
    "0-d buffer": (torch.tensor(5.0), torch.tensor(0)),
}


def compiled_outcome(program, table, index, bounded=True):
    graphs = Graphs()
    if bounded:
        compiled = graphmend.compile(program.Lookup(table), backend=graphs)
    else:
        compiled = torch.compile(graphmend.mend(program.Lookup(table)), backend=graphs)
    with torch.no_grad():
        return outcome(compiled, index), graphs


def test_the_read_goes_ahead_in_range(program):
    table, index = IN_RANGE
    actual, graphs = compiled_outcome(program, table, index)
    assert_same(outcome(program.Lookup(table), index), actual)
    assert graphs.masked_read() and len(graphs.graphs) == 1


@pytest.mark.parametrize("name", sorted(FAILING))
def test_a_failed_check_runs_the_original(program, name):
    """As the original compiled: Dynamo itself raises its own error for a floating index
    (where eager Python raises IndexError), for the original and the mended program alike."""
    table, index = FAILING[name]
    with torch.no_grad():
        expected = outcome(torch.compile(program.Lookup(table), backend="eager"), index)
    actual, graphs = compiled_outcome(program, table, index)
    assert_same(expected, actual)
    assert not graphs.masked_read()


def test_without_a_boundary_the_original_runs(program):
    table, index = IN_RANGE
    actual, graphs = compiled_outcome(program, table, index, bounded=False)
    assert_same(outcome(program.Lookup(table), index), actual)
    assert not graphs.masked_read() and len(graphs.graphs) > 1


def test_eagerly_the_original_runs(program, monkeypatch):
    read = []
    monkeypatch.setattr(rt, "index_where", lambda *args: read.append(args))
    table, index = IN_RANGE
    mended = graphmend.mend(program.Lookup(table))
    assert_same(outcome(program.Lookup(table), index), outcome(mended, index))
    assert not read


def reruns_of(case, timestep, monkeypatch):
    """How many times the compiled case ran a call again, for one timestep; and the
    outcome against the original's."""
    module = load(case)
    count = []
    rerun = rt.rerun

    def counting(*args):
        count.append(args)
        return rerun(*args)

    monkeypatch.setattr(rt, "rerun", counting)
    torch._dynamo.reset()
    compiled = graphmend.compile(build(module), backend="eager")
    sample = torch.ones(2, 3)
    with torch.no_grad():
        assert_same(outcome(build(module), sample, timestep), outcome(compiled, sample, timestep))
    return len(count)


def test_the_mask_is_the_whole_path(monkeypatch):
    """At -20 the inner condition (`timestep < 10`) holds, but the read is off its path (the
    outer `timestep < -10` holds): no range failure, no run again."""
    assert reruns_of("where/index_where_elif", torch.tensor(-20), monkeypatch) == 0
    assert reruns_of("where/index_where_elif", torch.tensor(-3), monkeypatch) == 0


def test_out_of_range_on_the_path_runs_the_call_again(monkeypatch):
    assert reruns_of("where/index_where_conditional", torch.tensor(14), monkeypatch) == 1
    assert reruns_of("where/index_where_conditional", torch.tensor(-30), monkeypatch) == 0


# The top-k read of Lightning-AI/torchmetrics: src/torchmetrics/functional/retrieval/
# precision.py: retrieval_precision, after its early return: the rest of the block is the
# if's else, and it reads `target` by the indices of the k best predictions.
RETRIEVAL = """
import torch
from torch import tensor


def precision(preds: torch.Tensor, target: torch.Tensor, top_k: int = 2):
    best = preds.topk(top_k, dim=-1)[1]
    if not target.sum():
        return tensor(0.0, device=preds.device)
    relevant = target[best].sum().float()
    return relevant / top_k


torch.compile(precision)  # an entry point of the mender
"""


@pytest.fixture()
def retrieval(tmp_path):
    with program_module(tmp_path, "index_where_retrieval", RETRIEVAL) as module:
        yield module


@pytest.mark.parametrize(
    "target",
    [[1, 0, 1, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1]],
    ids=["relevant", "none relevant", "target shorter than preds"],
)
def test_an_index_with_dimensions_picks_several_rows(retrieval, target):
    """One graph where the read is in range; where a top index is past the end of `target`,
    the call runs again eagerly and raises the original's IndexError."""
    preds, target = torch.tensor([0.1, 0.9, 0.3, 0.8, 0.2]), torch.tensor(target)
    graphs = Graphs()
    compiled = graphmend.compile(retrieval.precision, backend=graphs)
    with torch.no_grad():
        expected = outcome(retrieval.precision, preds, target)
        assert_same(expected, outcome(compiled, preds, target))
    if expected[0] == "returned":
        assert graphs.masked_read() and len(graphs.graphs) == 1
    else:
        assert expected[1] is IndexError


@pytest.mark.parametrize("target", [[1, 0, 1, 0, 0], [1, 1, 1]], ids=["relevant", "short"])
def test_an_index_with_dimensions_under_inductor(retrieval, target):
    preds, target = torch.tensor([0.1, 0.9, 0.3, 0.8, 0.2]), torch.tensor(target)
    torch._dynamo.reset()
    compiled = graphmend.compile(retrieval.precision)
    with torch.no_grad():
        assert_same(outcome(retrieval.precision, preds, target), outcome(compiled, preds, target))
