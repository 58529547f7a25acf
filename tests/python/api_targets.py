"""Objects for test_api.py. The test double of the mender rewrites the string "orig" to
"mend" in this file, so a call tells which version of a function ran."""

from __future__ import annotations

import enum
import functools

import torch

SCALE = 3


def helper(x):
    return "orig", x


def plain(x: torch.Tensor, k: int = 2, *, z: int = 1) -> tuple:
    """A docstring."""
    return "orig", helper(x)[0], k, z


plain.custom_attribute = "kept"


def calls_helper_by_global(x):
    return helper(x)[0]


def fact(n):
    if n <= 1:
        return "orig"
    return fact(n - 1)


def make_counter():
    count = 0

    def bump(step=1):
        nonlocal count
        count += step
        return "orig", count

    def read():
        return count

    return bump, read


def raises_on_line():
    x = "orig"
    raise KeyError(x)  # the line the traceback must name


def unchanged_function(x):
    return x + SCALE


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@logged
def decorated(x):
    return "orig"


class Constraint:
    def __init__(self, bound):
        self.bound = bound

    def check(self, x):
        return "orig", x > self.bound


class Positive(Constraint):
    def __init__(self):
        super().__init__(0)


def constructs_a_class(x):
    """Reaches Positive and Constraint only through the constructor (torch.distributions'
    shape: a distribution built in the function validates in its __init__)."""
    constraint = Positive()
    return constraint.check(x), constraint


class Color(enum.Enum):
    RED = 1

    def tag(self):
        return "orig"


def uses_an_enum():
    """Color cannot be subclassed: it stays as it is."""
    return Color.RED.tag(), Color(1)


class Base(torch.nn.Module):
    def forward(self, x):
        return x + 1, "orig"


class Child(Base):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)
        self.register_buffer("steps", torch.zeros(()))

    def forward(self, x):
        y, tag = super().forward(self.lin(x))
        return y, tag, self.__private(), self.kind, self.twice(1), self.named()

    def __private(self):
        return "orig"

    @property
    def kind(self):
        return "orig"

    @staticmethod
    def twice(v):
        return ("orig", v * 2)

    @classmethod
    def named(cls):
        return ("orig", cls.__name__)


class Plain(torch.nn.Module):
    """Nothing to mend: only library submodules."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.lin(x)


class Outer(torch.nn.Module):
    def __init__(self, given=None):
        super().__init__()
        self.child = Child()
        self.seq = torch.nn.Sequential(Child(), torch.nn.ReLU())
        self.plain = Plain()
        self.given = given if given is not None else torch.nn.Identity()

    def forward(self, x):
        y = self.child(x)
        z = self.seq[0](x)
        return y, z, calls_helper_by_global(x)


def branchy(x: torch.Tensor):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


class Counter:
    def method(self):
        return "orig"


COUNTER = Counter()
PAIR = (Counter(), 3)
LAZY = Counter()


def calls_global_objects():
    return COUNTER.method(), PAIR[0].method(), PAIR[1]


def compares_a_global_object(x):
    return x is COUNTER, COUNTER.method()


def calls_a_global_the_module_rebinds():
    return LAZY.method()


def rebind_lazy():
    global LAZY
    LAZY = Counter()


class Stepper:
    """A plain object whose method calls another of its methods through ``self``."""

    def __init__(self):
        self.steps = 0

    def step(self):
        self.steps += 1
        return self.inner()

    def inner(self):
        return "orig"


class NoGradForward(torch.nn.Module):
    @torch.no_grad()
    def forward(self, x):
        return "orig", torch.is_grad_enabled()
