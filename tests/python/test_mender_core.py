"""graphmend.mend on the core's table of functions: only what a rewrite touched is
compiled again, the rest keeps its code object, and a second process reads the disk cache
instead of mending and compiling."""

from __future__ import annotations

import importlib
import linecache
import os
import sys
import textwrap
import time
import types

import pytest
import torch

import graphmend
from graphmend import cache, codegen, mender

MODULE = '''\
import torch


def shout(x: torch.Tensor):
    print("x is", x)
    return x * 2


def quiet(x: torch.Tensor):
    """A docstring
spanning lines at column 0."""
    return x + 1


def calls_shout(x: torch.Tensor):
    return shout(x) + quiet(x)
'''


@pytest.fixture
def module(tmp_path, monkeypatch):
    name = f"gm_core_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(mender, "_cache_dir", lambda: str(tmp_path / "cache"))
    mender._FILE_CACHE.clear()
    yield importlib.import_module(name)
    mender._FILE_CACHE.clear()
    sys.modules.pop(name, None)


def test_only_touched_functions_get_new_code(module):
    mended, report = graphmend.mend(module.calls_shout, report=True)
    notes = {n.qualname: n for n in report.notes}
    assert notes["shout"].status == "mended"
    assert notes["quiet"].status == "unchanged"
    assert notes["calls_shout"].reason == "rebuilt to reach mended helpers"
    assert graphmend.mend(module.quiet).__code__ is module.quiet.__code__
    assert graphmend.mend(module.shout).__code__ is not module.shout.__code__
    x = torch.ones(2)
    assert torch.equal(mended(x), module.calls_shout(x))
    # the rebuilt caller reaches the mended helper through a closure cell, not the globals
    assert "shout" in mended.__code__.co_freevars
    assert module.__dict__["shout"] is module.shout


def test_a_second_process_reads_what_the_first_wrote(module, monkeypatch):
    first = str(graphmend.mend(module.calls_shout, report=True)[1])
    mender._FILE_CACHE.clear()  # as a new process: only the disk cache is left

    def refuse(*args, **kwargs):
        raise AssertionError("mended or compiled again")

    monkeypatch.setattr(cache, "mend_objects", refuse)
    monkeypatch.setattr(codegen, "compile_function", refuse)
    mended, report = graphmend.mend(module.calls_shout, report=True)
    assert str(report) == first
    x = torch.ones(2)
    assert torch.equal(mended(x), module.calls_shout(x))


def test_a_function_compiled_alone_keeps_every_position(module):
    """Indented to nest it in the scope that binds its helpers, a column-0 function still
    has the original's lines and columns (its docstring's second line is not indented)."""
    lines = MODULE.splitlines(keepends=True)
    quiet = module.quiet.__code__
    first = quiet.co_firstlineno
    last = first + 3
    alone = codegen.compile_function(
        lines[first - 1 : last],
        list(range(first, last + 1)),
        quiet.co_filename,
        "quiet",
        "",
        ["unused"],
        0,
    )
    assert alone.co_consts[0] == quiet.co_consts[0]  # the docstring, unchanged
    assert alone.co_code == quiet.co_code
    assert list(alone.co_positions()) == list(quiet.co_positions())
    assert alone.co_qualname == "quiet" and alone.co_firstlineno == first


def test_a_method_compiled_alone_mangles_and_finds_its_class(tmp_path):
    source = textwrap.dedent("""\
        class Box:
            def __init__(self):
                self.__secret = 3

            def peek(self):
                return self.__secret + len(super().__repr__()) * 0
        """)
    namespace = {}
    exec(compile(source, "box.py", "exec"), namespace)
    peek = namespace["Box"].peek.__code__
    lines = source.splitlines(keepends=True)[4:6]
    alone = codegen.compile_function(lines, [5, 6], "box.py", "Box.peek", "Box", ["__class__"], 0)
    assert alone.co_names == peek.co_names  # _Box__secret
    assert alone.co_freevars == peek.co_freevars == ("__class__",)
    assert list(alone.co_positions()) == list(peek.co_positions())


BINDING = """\
def helper(x):
    return ("original", x)


def plain(x):
    return helper(x) + helper(x + 1)


def handled(x):
    try:
        if x > 1:
            raise ValueError(x)
        return helper(x)
    except ValueError as error:
        return ("caught", helper(error.args[0]))


def generated(n):
    for i in range(n):
        yield helper(i)


def with_cell(x):
    y = x

    def inner():
        return y

    return helper(inner())


def in_comprehension(xs):
    return [helper(x) for x in xs]
"""


@pytest.mark.skipif(not codegen.BIND_SUPPORTED, reason="bytecode of another version")
def test_binding_globals_without_compiling_behaves_as_compiled():
    """``bind_globals`` turns a global load into a closure cell's: the result behaves as the
    function compiled alone with that name bound, handlers, generators and cells included;
    a name nested code loads is left to the compiler."""
    namespace = {}
    exec(compile(BINDING, "binding.py", "exec"), namespace)
    cell = types.CellType(lambda x: ("mended", x))
    calls = {"plain": (1,), "handled": (1,), "generated": (3,), "with_cell": (5,)}
    for name, args in list(calls.items()) + [("handled", (5,))]:
        fn = namespace[name]
        code = codegen.bind_globals(fn.__code__, ["helper"])
        assert code is not None and code.co_freevars[-1] == "helper"
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        closure = tuple(cells.get(n, cell) for n in code.co_freevars)
        bound = types.FunctionType(code, namespace, name, None, closure)
        got, want = bound(*args), fn(*args)
        if name == "generated":
            got, want = list(got), list(want)
        assert repr(got) == repr(want).replace("original", "mended")
        # every instruction keeps its position
        assert [p for p in code.co_positions()][-len(fn.__code__.co_code) // 2 :] == list(
            fn.__code__.co_positions()
        )
    assert codegen.bind_globals(namespace["in_comprehension"].__code__, ["helper"]) is None


@pytest.mark.skipif(not codegen.BIND_SUPPORTED, reason="bytecode of another version")
def test_a_caller_of_a_mended_helper_is_not_compiled_again(module, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("compiled alone")

    monkeypatch.setattr(codegen, "compile_function", refuse)
    mended = graphmend.mend(module.calls_shout)
    assert mended.__code__.co_freevars == ("shout",)
    x = torch.ones(2)
    assert torch.equal(mended(x), module.calls_shout(x))


def _new_process(monkeypatch):
    """Forgets what this process mended and read, as a new process would."""
    mender._FILE_CACHE.clear()
    mender._TEXTS.clear()
    mender._DIGESTS.clear()
    mender._STAT_INDEXES.clear()
    linecache.clearcache()


def test_a_filled_cache_reads_no_source(module, monkeypatch):
    """The digest of a file's text is remembered by its stat: a process that finds every
    entry reads no source."""
    monkeypatch.setattr(cache.StatIndex, "RECENT_NS", 0)  # the file was just written
    first = str(graphmend.mend(module.calls_shout, report=True)[1])
    _new_process(monkeypatch)

    def refuse(*args, **kwargs):
        raise AssertionError("source read")

    monkeypatch.setattr(linecache, "getlines", refuse)
    mended, report = graphmend.mend(module.calls_shout, report=True)
    assert str(report) == first
    x = torch.ones(2)
    assert torch.equal(mended(x), module.calls_shout(x))


def test_an_edit_that_keeps_size_and_mtime_is_seen(module, monkeypatch):
    """The stat signature holds the change time and inode too: an edit of the same size
    whose modification time is put back is read again, not taken from the index."""
    monkeypatch.setattr(cache.StatIndex, "RECENT_NS", 0)
    path = module.__file__
    graphmend.mend(module.calls_shout)
    before = os.stat(path)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    edited = text.replace('print("x is", x)', 'print("x IS", x)')
    assert len(edited) == len(text)
    time.sleep(0.01)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(edited)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    _new_process(monkeypatch)
    digest = mender._source_file(module.shout.__code__, module.__dict__).digest
    assert digest == mender._digest(edited)


def test_a_file_modified_just_now_is_not_recorded(tmp_path):
    """Within the file system's timestamp granularity of now, a later edit could keep the
    whole signature: such a file's digest is not recorded."""
    path = tmp_path / "fresh.py"
    path.write_text("x = 1\n")
    index = cache.StatIndex(str(tmp_path / "cache"))
    index.record(str(path), os.stat(path), "digest")
    assert index.lookup(str(path), os.stat(path)) is None
    old = time.time_ns() - 10 * cache.StatIndex.RECENT_NS
    os.utime(path, ns=(old, old))  # the change time stays recent
    index.record(str(path), os.stat(path), "digest")
    assert index.lookup(str(path), os.stat(path)) is None
