"""What a module instance's walk covers (mender._compile_reach): forward and what it names,
transitively, through methods, properties and special methods; not the members a call
never runs (construction, printing, methods nobody names), which keep their code."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import graphmend  # noqa: E402
from behaviour import assert_same_behaviour, observe, program_module  # noqa: E402
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
    """diffusers' pipelines hold the scheduler, a plain object, and call `scheduler.step`
    (`graphmend.mend(module)` gives the module's copy a mended twin of it); the bound
    method mended on its own is fixed too: one graph, and the values of the original, eagerly and
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


# ---------------------------------------------------------------------------------------------
# Plain objects a module holds: the copy holds a twin of the mended class sharing __dict__.

HELD = '''
import warnings

import torch
from torch import nn, optim


def shout(x):
    print("shout", x.shape)
    return x.relu()


class Scaler:
    """A plain helper object: counts its calls, branches on a tensor, prints."""

    def __init__(self, factor):
        self.factor = factor
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return self.scale(x)

    def scale(self, x):
        if x.sum() > 0:
            x = x * self.factor
        else:
            x = x - self.factor
        print("scaled", self.calls)
        return x


class Decay(optim.lr_scheduler.LRScheduler):
    """A user scheduler over torch's: `get_lr` warns outside `step` (k-diffusion's)."""

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("use get_last_lr()")
        return [base * 0.5 ** self.last_epoch for base in self.base_lrs]


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.scaler = Scaler(2.0)
        self.alias = self.scaler
        self.pair = (Scaler(3.0), 4.0)
        self.act = shout
        self.rescale = self.scaler.scale
        self.opt = optim.SGD(self.lin.parameters(), lr=0.1)
        self.sched = Decay(self.opt)

    def forward(self, x, step):
        if self.alias is not self.scaler:
            raise RuntimeError("the alias is another object")
        h = self.scaler(x) + self.pair[0](x) * self.pair[1] + self.rescale(x)
        if step:
            self.opt.step()
            self.sched.step()
            lr = self.sched.get_last_lr()[0]
        else:
            lr = self.sched.get_lr()[0]
        return self.act(self.lin(h)) * lr


class Stepper(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.sched = Decay(optim.SGD(self.lin.parameters(), lr=0.1))

    def forward(self, x):
        self.sched.step()  # torch's step calls get_lr
        return self.lin(x)


torch.manual_seed(0)
INPUTS = [(torch.ones(2, 3), False), (-torch.ones(2, 3), True), (-torch.ones(2, 3), False),
          (torch.ones(2, 3), True)]
'''


@pytest.fixture()
def held(tmp_path):
    with program_module(tmp_path, "held_program", HELD) as module:
        yield module


def fresh_model(program):
    torch.manual_seed(0)
    return program.Model()


def held_state(model):
    """What the program's calls change in the objects the module holds."""
    return (model.scaler.calls, model.pair[0].calls, model.sched.last_epoch,
            model.sched.get_last_lr(), model.opt.param_groups[0]["lr"])


def run_all(program, call):
    return [observe(program, call, index) for index in range(len(program.INPUTS))]


def test_held_objects_get_twins_of_their_mended_classes(held):
    model = fresh_model(held)
    mended, report = graphmend.mend(model, report=True)
    for name in ("scaler", "sched"):
        twin, original = getattr(mended, name), getattr(model, name)
        assert type(twin) is not type(original) and isinstance(twin, type(original))
        assert twin.__dict__ is original.__dict__  # one state, seen through both
    assert mended.alias is mended.scaler  # one twin per object
    assert mended.pair[0].__dict__ is model.pair[0].__dict__ and mended.pair[1] == 4.0
    assert mended.act is not held.shout and mended.act.__graphmend_original__ is held.shout
    assert mended.rescale.__self__ is mended.scaler  # bound to the twin
    assert mended.rescale.__func__ is not held.Scaler.scale
    assert mended.opt is model.opt  # a library object
    assert (model.alias, model.act) == (model.scaler, held.shout)  # the original untouched
    assert type(model.scaler) is held.Scaler
    assert {"Scaler", "Decay"} <= {n.qualname for n in report.notes if n.status == "mended"}


def test_the_reach_covers_what_a_library_base_calls_on_a_held_object(held):
    """Stepper's forward names only `step`, torch's; torch's `step` calls Decay.get_lr."""
    model = held.Stepper()
    assert "get_lr" in mender._compile_reach(model)
    assert "__init__" not in mender._compile_reach(model)
    assert type(graphmend.mend(model).sched).get_lr is not held.Decay.get_lr


def test_a_held_object_mended_behaves_and_keeps_its_state_shared(held):
    expected_model = fresh_model(held)
    expected = run_all(held, expected_model)
    model = fresh_model(held)
    actual = run_all(held, graphmend.mend(model))
    for e, a in zip(expected, actual):
        assert_same_behaviour(e, a)
    assert held_state(model) == held_state(expected_model)
    assert expected[0]["warnings"] and "scaled 1" in expected[0]["printed"]


@pytest.mark.inductor
def test_a_held_object_mended_compiles_with_inductor_like_the_original(held):
    expected_model = fresh_model(held)
    expected = run_all(held, expected_model)
    model = fresh_model(held)
    torch._dynamo.reset()
    actual = run_all(held, graphmend.compile(model))
    for e, a in zip(expected, actual):
        assert_same_behaviour(e, a, close=True)
    assert held_state(model) == held_state(expected_model)


def test_a_held_object_mended_breaks_less(held):
    x, step = held.INPUTS[0]
    with torch.no_grad():
        before = graphmend.explain(fresh_model(held), x, step)
        after = graphmend.explain(graphmend.mend(fresh_model(held)), x, step)
    assert len(before.breaks) >= 3  # the branch, the print and the warning in held objects
    assert (len(after.breaks), after.graph_count) == (0, 1)


DECLINED = '''
import enum

import torch
from torch import nn


class Slotted:
    __slots__ = ("factor",)

    def __init__(self):
        self.factor = 2.0

    def scale(self, x):
        print("scale")
        return x * self.factor


class Finalised:
    def __init__(self):
        self.factor = 2.0

    def scale(self, x):
        print("scale")
        return x * self.factor

    def __del__(self):
        print("closed")


class Bag(dict):
    def scale(self, x):
        print("scale")
        return x * self["factor"]


class Looped:
    def __init__(self):
        self.me = self

    def scale(self, x):
        print("scale")
        return x * 2.0


class Mode(enum.Enum):
    DOUBLE = 2.0

    def scale(self, x):
        print("scale")
        return x * self.value


class Listed:
    def scale(self, x):
        print("scale")
        return x * 3.0


class Model(nn.Module):
    def __init__(self, held):
        super().__init__()
        self.held = held
        self.listed = [Listed()]

    def forward(self, x):
        return self.held.scale(x) + self.listed[0].scale(x)
'''


@pytest.fixture()
def declined(tmp_path):
    with program_module(tmp_path, "declined_program", DECLINED) as module:
        yield module


@pytest.mark.parametrize("kind, reason", [
    ("Slotted", "has __slots__"), ("Finalised", "defines __del__"),
    ("Bag", "is not a Python class"), ("Looped", "it holds itself"), ("Mode", "enum member"),
])
def test_held_objects_a_twin_could_not_be_exactly_are_left_as_they_are(declined, kind, reason):
    held = declined.Mode.DOUBLE if kind == "Mode" else getattr(declined, kind)()
    if kind == "Bag":
        held["factor"] = 2.0
    model = declined.Model(held)
    mended, report = graphmend.mend(model, report=True)
    assert mended.held is held and mended.listed is model.listed  # a list is shared as it is
    assert type(mended) is not type(model)
    skipped = [n.reason for n in report.notes if n.qualname == kind and n.status == "skipped"]
    assert skipped and reason in skipped[0], report.notes
    x = torch.ones(2)
    assert torch.equal(mended(x), model(x))
