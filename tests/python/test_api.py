"""graphmend.mend / compile / explain on live objects.

The plumbing (fetching source, rebuilding functions, classes and module trees, the compile
boundary) is tested against a test double of the mender that rewrites the string "orig" to
"mend" and inserts a line at the top, so every test here says which version of a function
ran and whether line numbers were mapped back, independently of the real rewrites (those are
tested by test_cases.py).
"""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
import traceback
import types

import pytest
import torch

import graphmend
from graphmend import _mend_source, cache, mender
from graphmend._mend_source import MendDiagnostic, MendResult

import api_targets as T

INSERTED = "import graphmend.runtime as __graphmend_rt__\n"


def fake_mend_source(source, filename=None, **options):
    """Inserts the runtime import after the __future__ import and rewrites "orig". Its table of
    functions and classes is the real core's, moved by the inserted line; a definition
    counts as touched where its text holds "orig"."""
    lines = source.splitlines(keepends=True)
    at = next((i + 1 for i, line in enumerate(lines) if line.startswith("from __future__")), 0)
    mended_lines = lines[:at] + [INSERTED] + lines[at:]
    line_map = list(range(1, at + 1)) + [max(at, 1)] + list(range(at + 1, len(lines) + 1))
    diagnostics = []
    for number, line in enumerate(lines, 1):
        if "if x.sum() > 0:" in line:
            column = line.index("if")
            diagnostics.append(
                dict(
                    code="GM101",
                    line=number,
                    column=column,
                    end_line=number + 3,
                    end_column=0,
                    message="branch on tensor value `x.sum() > 0`",
                    fixed=False,
                    rewrite="",
                )
            )
        if '"orig"' in line:
            diagnostics.append(
                dict(
                    code="GM102",
                    line=number,
                    column=line.index('"orig"'),
                    end_line=number,
                    end_column=0,
                    message="test edit",
                    fixed=True,
                    rewrite="defer",
                )
            )
    mended = "".join(mended_lines).replace('"orig"', '"mend"')
    definitions = []
    for d in real_definitions(source, filename):
        moved = lambda line: line + 1 if line > at else line  # noqa: E731
        touched = any('"orig"' in line for line in lines[d.first_line - 1 : d.last_line])
        definitions.append(
            d._replace(
                mended_first_line=moved(d.first_line),
                mended_last_line=moved(d.last_line),
                touched=touched,
            )
        )
    return MendResult(
        source=mended,
        changed=mended != source,
        diagnostics=tuple(MendDiagnostic(**d) for d in diagnostics),
        line_map=tuple(line_map),
        edits=(),
        error=None,
        definitions=tuple(definitions),
    )


def real_definitions(source, filename):
    switched_off = dict.fromkeys(graphmend.options.REWRITES, False)
    return _mend_source.mend_source(source, filename, definitions=True, **switched_off).definitions


class FakeRuntime:
    def __init__(self):
        self.flushes = 0
        self.events = []
        self.state = types.SimpleNamespace(
            records=["pending"],  # the boundary flushes only when a record is pending
            bounded=0,  # how many boundaries are running a call
            rerun_guards=False,  # no rerun_if traced: no random state kept
            streams=None,  # the streams of the outermost boundary's call
        )

    def register_boundary(self, wrapper_code, entry=None):
        pass

    def is_rerun(self, exc):
        return False

    def flush(self):
        self.flushes += 1
        self.events.append("flush")

    def translate(self, exc):
        prefix = "graphmend-trap:builtins.ValueError:"
        if prefix in str(exc):
            return ValueError(str(exc).split(prefix, 1)[1])
        return None


@pytest.fixture
def fake_runtime(monkeypatch):
    runtime = FakeRuntime()
    monkeypatch.setattr(mender, "_runtime", lambda: runtime)
    return runtime


@pytest.fixture
def fake_mender(monkeypatch, fake_runtime):
    monkeypatch.setattr(cache, "mend_source", fake_mend_source)
    monkeypatch.setattr(mender, "_cache_dir", lambda: None)  # the fake's output is not stored
    mender._FILE_CACHE.clear()
    yield
    mender._FILE_CACHE.clear()
    T.__dict__.pop("__graphmend_rt__", None)


# ---------------------------------------------------------------------------------------------
# Functions.


def test_function_is_rebuilt_from_mended_source(fake_mender):
    mended = graphmend.mend(T.plain)
    assert mended is not T.plain
    assert mended(torch.ones(1))[0] == "mend"
    assert T.plain(torch.ones(1))[0] == "orig"  # the original is untouched
    assert T.helper(1)[0] == "orig"


def test_function_metadata_and_defaults_are_kept(fake_mender):
    mended = graphmend.mend(T.plain)
    for attr in (
        "__name__",
        "__qualname__",
        "__doc__",
        "__module__",
        "__annotations__",
        "__defaults__",
        "__kwdefaults__",
    ):
        assert getattr(mended, attr) == getattr(T.plain, attr), attr
    assert mended.custom_attribute == "kept"
    assert mended.__globals__ is T.plain.__globals__
    assert mended(torch.ones(1), 5, z=7)[2:] == (5, 7)
    assert inspect.signature(mended) == inspect.signature(T.plain)
    assert mended.__graphmend_original__ is T.plain


def test_only_the_runtime_name_is_added_to_globals(fake_mender):
    before = dict(T.__dict__)
    graphmend.mend(T.Outer())
    added = set(T.__dict__) - set(before)
    assert added <= {"__graphmend_rt__"}
    assert all(T.__dict__[k] is v for k, v in before.items())


def test_helpers_called_by_global_name_are_mended(fake_mender):
    mended = graphmend.mend(T.calls_helper_by_global)
    assert mended(0) == "mend"
    assert T.calls_helper_by_global(0) == "orig"
    assert T.helper is T.__dict__["helper"] and T.helper(0)[0] == "orig"
    assert mended(0) == "mend"


def test_classes_constructed_by_global_name_are_mended(fake_mender):
    mended = graphmend.mend(T.constructs_a_class)
    (tag, positive), constraint = mended(1)
    assert (tag, positive) == ("mend", True)
    assert isinstance(constraint, T.Positive) and isinstance(constraint, T.Constraint)
    assert type(constraint).__name__ == "Positive" and constraint.bound == 0
    assert T.constructs_a_class(1)[0] == (
        "orig",
        True,
    )  # the original and its classes are as they were
    assert type(T.constructs_a_class(1)[1]) is T.Positive
    assert T.Positive.__dict__.get("__graphmend_original__") is None


def test_a_class_that_cannot_be_subclassed_is_kept(fake_mender):
    mended, report = graphmend.mend(T.uses_an_enum, report=True)
    assert mended() == ("orig", T.Color.RED)
    assert any(
        n.qualname == "Color" and n.status == "skipped" and "subclass" in n.reason
        for n in report.notes
    )


def test_recursive_helper_reaches_its_mended_self(fake_mender):
    mended = graphmend.mend(T.fact)
    assert mended(4) == "mend"
    assert T.fact(4) == "orig"


def test_closure_cells_are_shared_with_the_original(fake_mender):
    bump, read = T.make_counter()
    mended = graphmend.mend(bump)
    assert mended(2) == ("mend", 2)
    assert read() == 2  # nonlocal writes go to the original cell
    assert bump() == ("orig", 3)
    assert mended.__closure__[0] is bump.__closure__[0]


def test_line_numbers_map_back_to_the_original(fake_mender):
    mended = graphmend.mend(T.raises_on_line)
    assert mended.__code__.co_firstlineno == T.raises_on_line.__code__.co_firstlineno
    assert mended.__code__.co_filename == T.raises_on_line.__code__.co_filename
    with pytest.raises(KeyError) as info:
        mended()
    assert info.value.args == ("mend",)
    frame = traceback.extract_tb(info.tb)[-1]
    assert frame.filename == T.__file__
    assert "the line the traceback must name" in frame.line
    assert inspect.getsource(mended) == inspect.getsource(T.raises_on_line)


def test_mending_twice_mends_the_original_once(fake_mender):
    once = graphmend.mend(T.plain)
    twice = graphmend.mend(once)
    assert twice(torch.ones(1))[0] == "mend"
    assert twice.__graphmend_original__ is T.plain


def test_unchanged_function_gives_a_new_equal_function(fake_mender):
    mended = graphmend.mend(T.unchanged_function)
    assert mended is not T.unchanged_function
    assert mended(1) == T.unchanged_function(1)


@pytest.mark.parametrize(
    "obj",
    [len, torch.relu, torch.nn.functional.gelu, print],
    ids=lambda o: getattr(o, "__name__", repr(o)),
)
def test_unmendable_objects_come_back_unchanged_with_a_note(fake_mender, obj):
    mended, report = graphmend.mend(obj, report=True)
    assert mended is obj
    assert [n.status for n in report.notes] == ["skipped"]
    assert graphmend.mend_report(obj) is report


def test_function_without_source_is_skipped(fake_mender):
    namespace = {}
    exec(compile("def made(x):\n    return 'orig'\n", "<made-up>", "exec"), namespace)
    mended, report = graphmend.mend(namespace["made"], report=True)
    assert mended is namespace["made"]
    assert report.notes[0].status == "skipped" and "no source" in report.notes[0].reason


def test_bound_method_of_a_plain_object(fake_mender):
    counter = T.Counter()
    mended = graphmend.mend(counter.method)
    assert isinstance(mended, types.MethodType) and mended.__self__.__dict__ is counter.__dict__
    assert mended() == "mend" and counter.method() == "orig"


def test_global_objects_are_read_as_their_twins(fake_mender):
    """A plain object (alone or in a tuple) a function reads by a global name is read as its
    twin: its methods run mended, its state is the object's."""
    mended = graphmend.mend(T.calls_global_objects)
    assert mended() == ("mend", "mend", 3) and T.calls_global_objects() == ("orig", "orig", 3)
    assert T.COUNTER.__class__ is T.Counter


def test_a_global_object_the_function_compares_is_read_as_it_is(fake_mender):
    """`x is COUNTER` must keep holding for the object itself: a function that does more
    with a global object than read its attributes reads the object."""
    mended = graphmend.mend(T.compares_a_global_object)
    assert mended(T.COUNTER) == (True, "orig")


def test_a_global_the_module_rebinds_is_read_as_it_is(fake_mender):
    """`global LAZY; LAZY = ...` in a function of the module: a cell bound once would keep
    the old object, so the name stays a global read."""
    mended = graphmend.mend(T.calls_a_global_the_module_rebinds)
    assert mended() == "orig"


def test_bound_method_reaches_the_methods_it_calls_on_self(fake_mender):
    """Bound to the object's twin: ``self.inner()`` runs mended, and what the mended method
    sets on ``self`` is set on the object."""
    stepper = T.Stepper()
    mended = graphmend.mend(stepper.step)
    assert mended() == "mend" and stepper.steps == 1
    assert stepper.step() == "orig" and stepper.steps == 2


def test_report_lists_diagnostics_inside_reached_functions(fake_mender):
    mended, report = graphmend.mend(T.plain, report=True)
    assert graphmend.mend_report(mended) is report
    codes = {(d.code, d.line) for d in report.diagnostics}
    line = T.plain.__code__.co_firstlineno + 2
    assert ("GM102", line) in codes
    assert "fixed" in str(report)


# ---------------------------------------------------------------------------------------------
# Modules and classes.


def test_module_instance_is_a_mended_copy(fake_mender):
    torch.manual_seed(0)
    original = T.Outer()
    mended = graphmend.mend(original)
    x = torch.randn(3, 2)
    y, z, h = mended(x)
    assert y[1:5] == ("mend", "mend", "mend", ("mend", 2))
    assert y[5] == ("mend", "Child")
    assert h == "mend"
    oy, oz, oh = original(x)
    assert oy[1:5] == ("orig", "orig", "orig", ("orig", 2)) and oh == "orig"
    assert torch.equal(y[0], oy[0]) and torch.equal(z[0], oz[0])
    # Same kind, same classes by name, mended classes are subclasses.
    assert isinstance(mended, T.Outer) and type(mended) is not T.Outer
    assert type(mended).__name__ == "Outer" and type(mended).__qualname__ == "Outer"
    assert isinstance(mended.child, T.Child) and type(mended.child) is not T.Child
    assert type(original) is T.Outer and type(original.child) is T.Child


def test_module_copy_shares_parameters_and_state_dict(fake_mender):
    original = T.Outer()
    mended = graphmend.mend(original)
    a, b = original.state_dict(), mended.state_dict()
    assert list(a) == list(b)
    assert all(a[k].data_ptr() == b[k].data_ptr() for k in a)
    assert [id(p) for p in original.parameters()] == [id(p) for p in mended.parameters()]
    # Library-only subtrees are shared, not copied.
    assert mended.plain is original.plain and mended.seq[1] is original.seq[1]
    # Containers are the mended copy's own: registering on it leaves the original alone.
    mended.register_forward_hook(lambda *a: None)
    mended.register_buffer("extra", torch.ones(1))
    mended.train(False)
    assert not original._forward_hooks and "extra" not in original.state_dict()
    assert original.training and original.child.training


def test_module_with_nothing_to_mend_still_gives_a_copy(fake_mender):
    original = T.Plain()
    mended = graphmend.mend(original)
    assert mended is not original and isinstance(mended, T.Plain)
    assert mended.lin is original.lin
    x = torch.randn(2, 2)
    assert torch.equal(mended(x), original(x))


def test_shared_submodule_stays_shared(fake_mender):
    original = T.Outer()
    original.alias = original.child  # the same module registered twice
    mended = graphmend.mend(original)
    assert mended.alias is mended.child and mended.child is not original.child


def test_bound_forward_of_a_module(fake_mender):
    original = T.Outer()
    forward = graphmend.mend(original.forward)
    assert isinstance(forward, types.MethodType)
    assert forward.__self__ is not original and isinstance(forward.__self__, T.Outer)
    assert forward(torch.randn(1, 2))[2] == "mend"


def test_module_class_builds_mended_instances(fake_mender):
    Mended = graphmend.mend(T.Outer)
    assert issubclass(Mended, T.Outer) and Mended.__name__ == "Outer"
    given = T.Child()
    instance = Mended(given)
    assert type(instance.child) is not T.Child and isinstance(instance.child, T.Child)
    assert type(instance.seq[0]) is not T.Child
    assert type(given) is T.Child  # passed in: never modified
    assert instance(torch.randn(1, 2))[2] == "mend"
    assert type(T.Outer().child) is T.Child


# ---------------------------------------------------------------------------------------------
# compile and explain.


def test_compile_function_flushes_after_return_and_raise(fake_mender, fake_runtime):
    compiled = graphmend.compile(T.branchy, backend="eager")
    x = torch.tensor([1.0, 2.0])
    assert torch.equal(compiled(x), T.branchy(x))
    assert fake_runtime.flushes == 1
    assert compiled.__name__ == "branchy"
    raising = graphmend.compile(T.raises_on_line, backend="eager")
    with pytest.raises(KeyError):
        raising()
    assert fake_runtime.flushes == 2


def test_compile_translates_trap_errors(fake_mender, fake_runtime):
    def failing(x):
        raise RuntimeError("graphmend-trap:builtins.ValueError:bad input")

    boundary = graphmend.compile(failing, backend="eager")
    with pytest.raises(ValueError, match="^bad input$") as info:
        boundary(torch.ones(1))
    assert info.value.__suppress_context__
    assert fake_runtime.flushes == 1


def test_compile_module_stays_a_module_and_flushes_outside(fake_mender, fake_runtime):
    torch.manual_seed(0)
    original = T.Plain()
    compiled = graphmend.compile(original, backend="eager")
    assert isinstance(compiled, torch.nn.Module)
    x = torch.randn(2, 2)
    assert torch.equal(compiled(x), original(x))
    assert fake_runtime.flushes == 1
    assert graphmend.mend_report(compiled) is not None


def test_compile_rejects_a_class(fake_mender):
    with pytest.raises(TypeError):
        graphmend.compile(T.Outer)


def test_explain_reports_breaks_with_tag_codes(fake_mender):
    report = graphmend.explain(T.branchy, torch.tensor([1.0, -3.0]))
    assert isinstance(report, graphmend.ExplainReport)
    assert report.graph_break_count == 1 and report.graph_count == 2
    (info,) = report.breaks
    assert info.filename == T.__file__
    assert info.line == T.branchy.__code__.co_firstlineno + 1
    assert info.code == "GM101" and info.fixed is False
    text = str(report)
    assert "1 break(s)" in text and "GM101" in text and "api_targets.py" in text


# ---------------------------------------------------------------------------------------------
# End to end with the real mender (programs from the rewrite cases, tests/cases/).


def _program(case):
    from case_files import load

    return load(case)


def test_explain_names_the_tag_of_each_break():
    program = _program("defer/print_and_branch")
    report = graphmend.explain(program.ENTRY, torch.tensor([1.0, 2.0]))
    assert [(b.code, b.fixed) for b in report.breaks] == [("GM102", True), ("GM101", True)]
    assert all(b.filename == program.__file__ for b in report.breaks)
    mended = graphmend.explain(graphmend.mend(program.ENTRY), torch.tensor([1.0, 2.0]))
    assert mended.breaks == [] and mended.graph_count == 1


def test_remaining_break_is_reported_at_its_original_line():
    program = _program("defer/order_with_declined")
    mended = graphmend.mend(program.ENTRY)
    report = graphmend.explain(mended, torch.tensor([1.0, 2.0]))
    (info,) = report.breaks
    source_line = open(program.__file__).read().splitlines()[info.line - 1]
    assert source_line.strip() == "print(STATUS, z)"
    assert info.code == "GM102" and info.fixed is False


def test_compiled_module_replays_prints_after_the_call(capsys):
    program = _program("defer/print_order")
    torch.manual_seed(0)
    compiled = graphmend.compile(program.ENTRY(), backend="eager")
    x = torch.tensor([[1.0, 2.0]])
    with torch.no_grad():
        out = compiled(x)
        printed = capsys.readouterr().out
        torch.manual_seed(0)
        expected = program.ENTRY()(x)
    assert torch.equal(out, expected)
    assert printed == capsys.readouterr().out
    assert printed.count("\n") == 3


def test_compile_takes_the_object_itself_when_mending_rebuilds_nothing():
    torch.manual_seed(0)
    plain = T.Plain()  # only library submodules: the copy would be identical
    compiled = graphmend.compile(plain, backend="eager")
    assert compiled._orig_mod is plain
    assert not graphmend.mend_report(compiled).rebuilt
    program = _program("defer/print_order")
    needs_mending = program.ENTRY()
    compiled = graphmend.compile(needs_mending, backend="eager")
    assert compiled._orig_mod is not needs_mending
    assert type(compiled._orig_mod).__graphmend_original__ is type(needs_mending)
    assert graphmend.mend_report(compiled).rebuilt
    function = graphmend.compile(T.unchanged_function, backend="eager")
    assert function.__graphmend_compiled__._torchdynamo_orig_callable is T.unchanged_function


def test_compiled_trap_raises_the_original_exception():
    program = _program("trap/value_error")
    compiled = graphmend.compile(program.ENTRY, backend="eager")
    assert torch.equal(compiled(torch.tensor([4.0])), torch.tensor([2.0]))
    with pytest.raises(ValueError, match="^inputs must be non-negative$"):
        compiled(torch.tensor([-4.0]))
    from graphmend import runtime

    assert runtime.pending() == []


def test_mend_report_of_a_module_lists_fixed_sites():
    program = _program("where/method_helper")
    mended, report = graphmend.mend(program.ENTRY(), report=True)
    assert sorted((d.code, d.rewrite) for d in report.fixed) == [
        ("GM101", "where"),
        ("GM101", "where"),
        ("GM102", "defer"),
    ]
    assert {n.qualname for n in report.notes if n.status == "mended"} >= {
        "Gate.forward",
        "ENTRY.normalise",
        "ENTRY.forward",
    }
    text = str(report)
    assert "GM101" in text and "method_helper.py" in text


def test_user_decorator_wrapper_reaches_the_mended_function(fake_mender):
    mended = graphmend.mend(T.decorated)
    assert mended(1) == "mend" and T.decorated(1) == "orig"
    assert mended.__wrapped__(1) == "mend"
    assert mended.__name__ == "decorated"


def test_library_decorator_wrapper_reaches_the_mended_method(fake_mender):
    original = T.NoGradForward()
    mended = graphmend.mend(original)
    assert mended(torch.ones(1)) == ("mend", False)
    assert original(torch.ones(1)) == ("orig", False)


def test_library_code_is_never_rebuilt(fake_mender):
    mended, report = graphmend.mend(torch.nn.functional.softmax, report=True)
    assert mended is torch.nn.functional.softmax
    assert "library code" in report.notes[0].reason


def test_unmendable_objects_give_no_warning(fake_mender):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert graphmend.mend(len) is len
        assert graphmend.mend(torch.relu) is torch.relu


def test_compile_bound_forward_flushes(fake_mender, fake_runtime):
    torch.manual_seed(0)
    original = T.Plain()
    compiled = graphmend.compile(original.forward, backend="eager")
    x = torch.randn(2, 2)
    assert torch.equal(compiled(x), original(x))
    assert compiled.__name__ == "forward" and fake_runtime.flushes == 1


def test_mending_a_compiled_module_mends_the_module_inside(fake_mender):
    original = T.Outer()
    mended = graphmend.mend(torch.compile(original, backend="eager"))
    assert isinstance(mended, T.Outer) and type(mended) is not T.Outer
    assert mended(torch.randn(1, 2))[2] == "mend"


def test_package_loads_the_live_object_mender_on_first_use():
    """`import graphmend` alone leaves the live object mender unloaded (the import hook and its
    helper never need it); its names are there all the same."""
    code = (
        "import sys, graphmend;"
        "loaded = any(m in sys.modules for m in ('graphmend.api', 'graphmend.mender',"
        " 'graphmend.compiling', 'graphmend.explainer', 'graphmend.runtime_aware'));"
        "names = [n for n in ('mend', 'compile', 'explain', 'MendReport') if n in dir(graphmend)];"
        "print(loaded, names, graphmend.mend is graphmend.api.mend, 'graphmend.api' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.split("\n")[0] == "False ['mend', 'compile', 'explain', 'MendReport'] True True"
    )
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        graphmend.no_such_name  # noqa: B018


def test_one_shape_of_a_break_site_from_mend_source_to_the_reports():
    """mend_source, the cache, the hook and mend report a site as one Diagnostic type."""
    from graphmend.reports import Diagnostic, diagnostic_of

    assert graphmend.MendDiagnostic is Diagnostic is graphmend.Diagnostic
    text = "import torch\n@torch.compile\ndef f(x: torch.Tensor):\n    print(x)\n    return x\n"
    site = graphmend.mend_source(text, "m.py").diagnostics[0]
    assert (site.filename, site.code, site.line, site.fixed) == ("m.py", "GM102", 4, True)
    assert str(site).startswith("m.py:4:5: GM102 fixed (defer): print call")
    assert graphmend.mend_source(text).diagnostics[0].filename == ""
    # The cache stores the fields but the file's name; they come back the same site.
    assert diagnostic_of("m.py", site.fields()) == site
    assert diagnostic_of("n.py", site) == dataclasses.replace(site, filename="n.py")
