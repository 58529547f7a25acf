"""graphmend.mend on the core's table of functions: only what a rewrite touched is
compiled again, the rest keeps its code object, and a second process reads the disk cache
instead of mending and compiling."""

from __future__ import annotations

import importlib
import sys
import textwrap

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
        lines[first - 1 : last], list(range(first, last + 1)), quiet.co_filename, "quiet", "",
        ["unused"], 0,
    )
    assert alone.co_consts[0] == quiet.co_consts[0]  # the docstring, unchanged
    assert alone.co_code == quiet.co_code
    assert list(alone.co_positions()) == list(quiet.co_positions())
    assert alone.co_qualname == "quiet" and alone.co_firstlineno == first


def test_a_method_compiled_alone_mangles_and_finds_its_class(tmp_path):
    source = textwrap.dedent('''\
        class Box:
            def __init__(self):
                self.__secret = 3

            def peek(self):
                return self.__secret + len(super().__repr__()) * 0
        ''')
    namespace = {}
    exec(compile(source, "box.py", "exec"), namespace)
    peek = namespace["Box"].peek.__code__
    lines = source.splitlines(keepends=True)[4:6]
    alone = codegen.compile_function(lines, [5, 6], "box.py", "Box.peek", "Box", ["__class__"], 0)
    assert alone.co_names == peek.co_names  # _Box__secret
    assert alone.co_freevars == peek.co_freevars == ("__class__",)
    assert list(alone.co_positions()) == list(peek.co_positions())
