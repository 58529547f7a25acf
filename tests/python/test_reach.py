"""What a module instance's walk covers (mender._compile_reach): forward and what it names,
transitively, through methods, properties and special methods; not the members a call
never runs (construction, printing, methods nobody names), which keep their code."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import graphmend  # noqa: E402
from behaviour import program_module  # noqa: E402
from graphmend import mender  # noqa: E402

PROGRAM = '''
import torch
from torch import nn


class Block(nn.Module):
    def forward(self, x):
        return self.scaled(x) + self[0]

    def scaled(self, x):
        if x.sum() > 0:
            x = x * self.factor
        else:
            x = x - 1
        return x

    @property
    def factor(self):
        print("factor read")
        return 2.0

    def __getitem__(self, index):
        print("item", index)
        return 1.0

    def export(self, x):
        if x.sum() > 0:
            x = x + 1
        return x

    def __repr__(self):
        print("repr")
        return "Block()"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x).relu()
'''


@pytest.fixture()
def program(tmp_path):
    with program_module(tmp_path, "reach_program", PROGRAM) as module:
        yield module


def test_the_reach_follows_names_from_forward(program):
    reach = mender._compile_reach(program.Model())
    assert {"forward", "scaled", "factor", "__getitem__"} <= reach
    assert not {"export", "__repr__", "__init__"} & reach


def test_members_out_of_reach_keep_their_code(program):
    model = program.Model()
    mended, report = graphmend.mend(model, report=True)
    block = type(mended.block)
    assert block.scaled is not program.Block.scaled  # rewritten ([Where])
    assert block.export is program.Block.export  # never run by a call of the model
    assert block.__repr__ is program.Block.__repr__
    noted = {note.qualname for note in report.notes}
    assert "Block.scaled" in noted and "Block.export" not in noted
    x = torch.tensor([1.0, 2.0])
    assert torch.equal(mended(x), model(x))
    assert torch.equal(mended.block.export(x), model.block.export(x))


def test_a_module_class_is_walked_whole(program):
    mended = graphmend.mend(program.Block)
    assert mended.export is not program.Block.export


def test_a_plain_object_held_by_a_module_is_mended_through_its_bound_method():
    """diffusers' pipelines hold the scheduler, a plain object, and call `scheduler.step`.
    `graphmend.mend(module)` keeps the object's class (test_cases' PENDING says why); the bound
    method mended on its own is fixed: one graph, and the values of the original, eagerly and
    under Inductor, on both sides of its branch and with a schedule that is a list."""
    from case_files import build, load

    case = load("where/attribute_set_to_tensor_scheduler")
    scheduler = build(case).scheduler
    step = graphmend.mend(scheduler.step)
    assert step.__func__ is not type(scheduler).step
    torch.manual_seed(0)
    output, sample = torch.randn(2, 3), torch.randn(2, 3)
    torch._dynamo.reset()
    compiled = torch.compile(step)
    for index in range(6):
        scheduler.step_index = index
        expected = scheduler.step(output, sample)
        assert torch.equal(step(output, sample), expected)
        assert torch.allclose(compiled(output, sample), expected)
    scheduler.step_index = 2
    explained = torch._dynamo.explain(step)(output, sample)
    assert (explained.graph_count, explained.graph_break_count) == (1, 0)
    schedule = scheduler.sigmas
    try:
        scheduler.sigmas = schedule.tolist()  # not a tensor: the original statement runs
        assert torch.equal(step(output, sample), scheduler.step(output, sample))
    finally:
        scheduler.sigmas = schedule
