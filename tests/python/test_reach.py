"""What a module instance's walk covers (mender._compile_reach): forward and what it names,
transitively, through methods, properties and special methods; not the members a call
never runs (construction, printing, methods nobody names), which keep their code."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import graphmend  # noqa: E402
from behaviour import assert_same_behaviour, observe, program_module  # noqa: E402
from graphmend import mender  # noqa: E402

PROGRAM = """
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
"""


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
    return (
        model.scaler.calls,
        model.pair[0].calls,
        model.sched.last_epoch,
        model.sched.get_last_lr(),
        model.opt.param_groups[0]["lr"],
    )


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


DECLINED = """
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
"""


@pytest.fixture()
def declined(tmp_path):
    with program_module(tmp_path, "declined_program", DECLINED) as module:
        yield module


@pytest.mark.parametrize(
    "kind, reason",
    [
        ("Slotted", "has __slots__"),
        ("Finalised", "defines __del__"),
        ("Bag", "is not a Python class"),
        ("Looped", "it holds itself"),
        ("Mode", "enum member"),
    ],
)
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


# ---------------------------------------------------------------------------------------------
# Frames Dynamo runs without tracing: a method that names no torch module and is called with
# no tensor (`sample(self, n)` of a plain object) runs as it is when its caller falls back;
# its mended code names `torch` (a lowered guard) and must not make Dynamo trace it.

UNTRACED = """
import torch


class Counts:
    def __init__(self, total):
        self.total = total

    def sample(self, n):
        count = int(self.total.max())
        if not self.total.min() == count:
            raise ValueError("inhomogeneous count")
        return [count] * n


def draw(total, n):
    return Counts(total).sample(n)
"""


@pytest.fixture()
def untraced(tmp_path):
    with program_module(tmp_path, "untraced_program", UNTRACED) as module:
        yield module


def test_mended_code_names_no_torch_module_where_the_original_named_none(untraced):
    mended, report = graphmend.mend(untraced.draw, report=True)
    assert any(d.rewrite == "trap" for d in report.fixed)
    held = dict(zip(mended.__code__.co_freevars, mended.__closure__))
    sample = held["Counts"].cell_contents.sample
    assert sample is not untraced.Counts.sample
    assert "torch" in sample.__code__.co_freevars  # bound to a cell, not read as a global
    globals_ = sample.__globals__
    assert not any(mender._marks_torch(globals_.get(n)) for n in sample.__code__.co_names)


def test_a_frame_the_original_runs_untraced_stays_untraced(untraced):
    """The original compiles no graph (Dynamo gives up on `draw` and runs `sample` without
    tracing it); the mended program compiles none either, and behaves as the original on a
    count that passes the guard and one that fails it, eagerly and under Inductor."""
    mended = graphmend.mend(untraced.draw)
    counts = []
    for fn in (untraced.draw, mended):
        torch._dynamo.reset()
        report = graphmend.explain(fn, torch.tensor([2.0, 2.0]), 3)
        counts.append((len(report.breaks), report.graph_count))
    assert counts[1] == counts[0]
    for total in (torch.tensor([2.0, 2.0]), torch.tensor([1.0, 4.0])):
        expected = _outcome(untraced.draw, total)
        assert _outcome(mended, total) == expected
        torch._dynamo.reset()
        assert _outcome(graphmend.compile(untraced.draw), total) == expected


def _outcome(fn, total):
    try:
        return ("returned", fn(total.clone(), 2))
    except ValueError as exc:
        return ("raised", str(exc))


# ---------------------------------------------------------------------------------------------
# Registries: a module-level dict or list of objects, classes or functions that a function
# reads items of (`DATASETS[task].verify(...)`, `SOLVERS[method](...)`) gives the mended item
# of the live container.

REGISTRY = """
import torch


class Dataset:
    def __init__(self, scale):
        self.scale = scale

    def verify(self, x):
        print("verifying with", self.scale)
        return x * self.scale


class Solver:
    def __init__(self, x):
        self.x = x

    def run(self):
        print("solving", tuple(self.x.shape))
        return self.x + 1


def square(x):
    print("squaring")
    return x * x


DATASETS = {"a": Dataset(2.0), "b": Dataset(3.0)}
SOLVERS = {"plain": Solver}
OPS = [square]


def step(x, task, method):
    y = DATASETS[task].verify(x)
    return SOLVERS[method](y).run() + OPS[0](y)


def same_as_default(task):
    return DATASETS[task] is DATASETS["a"]
"""


@pytest.fixture()
def registry(tmp_path):
    with program_module(tmp_path, "registry_program", REGISTRY) as module:
        yield module


def _printed(capsys, fn, *args):
    capsys.readouterr()
    value = fn(*args)
    return value, capsys.readouterr().out


def test_registry_items_are_read_mended(registry, capsys):
    """Each item a registry gives runs mended: its prints are deferred, and the step that
    broke at each of them compiles to one graph, printing and returning what the original
    does, eagerly and under Inductor, for every key."""
    mended = graphmend.mend(registry.step)
    x = torch.arange(3.0)
    torch._dynamo.reset()
    before = graphmend.explain(registry.step, x, "a", "plain")
    torch._dynamo.reset()
    after = graphmend.explain(mended, x, "a", "plain")
    assert before.breaks and (len(after.breaks), after.graph_count) == (0, 1), after
    for task in ("a", "b"):
        expected = _printed(capsys, registry.step, x, task, "plain")
        for candidate in (mended, graphmend.compile(registry.step)):
            value, printed = _printed(capsys, candidate, x, task, "plain")
            assert torch.allclose(value, expected[0]) and printed == expected[1]


def test_a_registry_is_read_live(registry, capsys):
    """An item registered or replaced after mending is what the mended function reads (as
    it is: the mender never saw it), as the original reads it."""
    mended = graphmend.mend(registry.step)
    x = torch.ones(2)
    registry.DATASETS["a"] = registry.Dataset(5.0)
    registry.DATASETS["c"] = registry.Dataset(7.0)
    for task in ("a", "c"):
        expected = _printed(capsys, registry.step, x, task, "plain")
        value, printed = _printed(capsys, mended, x, task, "plain")
        assert torch.equal(value, expected[0]) and printed == expected[1]


def test_a_registry_used_otherwise_is_read_as_it_is(registry):
    """`DATASETS[task] is DATASETS["a"]` compares the items themselves: not read through
    their mended counterparts."""
    mended = graphmend.mend(registry.same_as_default)
    assert mended("a") is True and mended("b") is False
    assert "DATASETS" not in (mended.__code__.co_freevars or ())
