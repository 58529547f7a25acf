"""A mend with a filled cache reads one file, the walk's bundle (``mender._Bundle``), and
gives the report and the behaviour of a mend with an empty cache; a changed file or option
never reaches what the bundle holds; ``cache.build_id`` is kept by the files' stat."""

from __future__ import annotations

import importlib
import linecache
import sys

import pytest
import torch

import graphmend
from graphmend import cache, codegen, mender

MODULE = """\
import torch


def shout(x: torch.Tensor):
    print("x is", x)
    return x * 2


def pick(x: torch.Tensor):
    if x.sum() > 0:
        y = x + 1
    else:
        y = x - 1
    return y


def calls_both(x: torch.Tensor):
    return shout(x) + pick(x)


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        return calls_both(x) * 3
"""


@pytest.fixture
def module(tmp_path, monkeypatch):
    name = f"gm_walk_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(mender, "_cache_dir", lambda: str(tmp_path / "cache"))
    monkeypatch.setattr(cache.StatIndex, "RECENT_NS", 0)  # the file was just written
    _new_process()
    yield importlib.import_module(name)
    _new_process()
    sys.modules.pop(name, None)


def _new_process() -> None:
    """Forgets what this process mended and read, as a new process would."""
    mender._FILE_CACHE.clear()
    mender._TEXTS.clear()
    mender._DIGESTS.clear()
    mender._STAT_INDEXES.clear()
    linecache.clearcache()


def _loads(monkeypatch) -> list:
    """The cache entries read from now on."""
    read = []
    load = cache.Store.load

    def counting(self, key):
        read.append(key)
        return load(self, key)

    monkeypatch.setattr(cache.Store, "load", counting)
    return read


def _run(mended, capsys) -> tuple:
    """Outputs on inputs that take each branch, and what was printed."""
    with torch.no_grad():
        out = torch.cat([mended(torch.tensor([3.0, -1.0])), mended(torch.tensor([1.0, -3.0]))])
    return out, capsys.readouterr().out


def test_a_filled_cache_reads_one_entry_and_gives_the_same_report(module, monkeypatch, capsys):
    empty, empty_report = graphmend.mend(module.Model(), report=True)
    assert {n.status for n in empty_report.notes} >= {"mended", "unchanged"}
    assert empty_report.fixed
    _new_process()
    read = _loads(monkeypatch)

    def refuse(*args, **kwargs):
        raise AssertionError("mended again")

    monkeypatch.setattr(cache, "mend_objects", refuse)
    filled, filled_report = graphmend.mend(module.Model(), report=True)
    assert len(read) == 1  # the bundle: no entry per file
    assert filled_report.notes == empty_report.notes
    assert filled_report.diagnostics == empty_report.diagnostics
    empty_out, empty_printed = _run(empty, capsys)
    filled_out, filled_printed = _run(filled, capsys)
    original_out, original_printed = _run(module.Model(), capsys)
    assert torch.equal(filled_out, empty_out) and torch.equal(filled_out, original_out)
    assert filled_printed == empty_printed == original_printed


def test_a_changed_file_is_mended_again_and_the_bundle_written_again(module, monkeypatch, capsys):
    graphmend.mend(module.Model())
    path = module.__file__
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text.replace("y = x + 1", "y = x + 10"))
    _new_process()
    edited = importlib.reload(module)
    mended, report = graphmend.mend(edited.Model(), report=True)
    out, _ = _run(mended, capsys)
    assert torch.equal(out, _run(edited.Model(), capsys)[0])
    # (x * 2 + (x + 10 if x.sum() > 0 else x - 1)) * 3
    assert torch.equal(out, torch.tensor([57.0, 21.0, 6.0, -30.0]))
    _new_process()
    read = _loads(monkeypatch)
    again, again_report = graphmend.mend(edited.Model(), report=True)
    assert len(read) == 1
    assert again_report.notes == report.notes and again_report.diagnostics == report.diagnostics
    assert torch.equal(_run(again, capsys)[0], out)


def test_options_are_part_of_the_bundle(module, monkeypatch):
    graphmend.mend(module.Model())
    _new_process()
    without_where = graphmend.mend(module.Model(), where=False, report=True)[1]
    assert any(not d.fixed and d.rewrite in ("", "where") for d in without_where.diagnostics)
    cache_dir = mender._cache_dir()
    monkeypatch.setattr(mender, "_cache_dir", lambda: cache_dir + "-empty")
    _new_process()
    fresh = graphmend.mend(module.Model(), where=False, report=True)[1]
    assert without_where.notes == fresh.notes and without_where.diagnostics == fresh.diagnostics


def test_the_build_id_is_kept_by_the_files_stat(tmp_path, monkeypatch):
    folder = str(tmp_path)
    cache.build_id.cache_clear()
    try:
        computed = cache.build_id(folder)
        memo = tmp_path / cache._BUILD_ID_MEMO
        stored = cache._read_marshalled(str(memo))
        if stored is None:
            pytest.skip("the package's files were modified too recently to be kept")
        assert stored[-1] == computed
        # What is kept is what is used, while the files' stat is the one recorded...
        cache.write_atomic(
            str(memo), cache.marshal.dumps((*stored[:-1], "kept")), durable=False, keep_mode=False
        )
        cache.build_id.cache_clear()
        assert cache.build_id(folder) == "kept"
        assert cache.build_id() == computed  # without a cache folder: computed, nothing read
        # ...and computed again when it is not.
        changed = ((0,) * 5,) * len(stored[3])
        monkeypatch.setattr(cache, "_unchanging_signatures", lambda paths: changed)
        cache.build_id.cache_clear()
        assert cache.build_id(folder) == computed
    finally:
        cache.build_id.cache_clear()


def _compiled(monkeypatch) -> list:
    """The touched functions compiled from now on, by name."""
    asked = []
    get = codegen.TouchedCode.get

    def counting(self, key):
        asked.append(key[0])
        return get(self, key)

    monkeypatch.setattr(codegen.TouchedCode, "get", counting)
    return asked


def test_touched_functions_are_compiled_when_reached(module, monkeypatch):
    """A file's skeleton is compiled when a walk first reaches one of its touched
    functions, and only what is reached is renumbered; a later walk from the disk entry
    compiles (mending the text again) what the first did not reach, and writes the entry
    again: every report and function is the one an empty cache gives."""
    asked = _compiled(monkeypatch)
    shout = graphmend.mend(module.shout)
    assert asked == ["shout"]
    _new_process()
    both, both_report = graphmend.mend(module.calls_both, report=True)
    assert asked == ["shout", "pick"]  # shout's code came from the disk
    _new_process()

    def refuse(*args, **kwargs):
        raise AssertionError("mended again")

    monkeypatch.setattr(cache, "mend_objects", refuse)
    monkeypatch.setattr(cache, "touched_code", refuse)
    again, again_report = graphmend.mend(module.calls_both, report=True)
    assert asked == ["shout", "pick"]
    monkeypatch.undo()
    monkeypatch.setattr(mender, "_cache_dir", lambda: None)
    _new_process()
    fresh, fresh_report = graphmend.mend(module.calls_both, report=True)
    assert again_report.notes == both_report.notes == fresh_report.notes
    assert again_report.diagnostics == both_report.diagnostics == fresh_report.diagnostics
    for got in (both, again):
        assert got.__code__.co_code == fresh.__code__.co_code
        for cell, fresh_cell in zip(got.__closure__, fresh.__closure__):
            helper, fresh_helper = cell.cell_contents.__code__, fresh_cell.cell_contents.__code__
            assert helper.co_code == fresh_helper.co_code
            assert list(helper.co_positions()) == list(fresh_helper.co_positions())
    x = torch.tensor([1.0, -3.0])
    assert torch.equal(again(x), module.calls_both(x)) and torch.equal(shout(x), x * 2)


def test_a_mended_text_that_does_not_compile_leaves_the_whole_file(module, monkeypatch):
    """Found when a touched function is first compiled, the walk starts again and every
    function of the file is left as it is, as when the file was compiled whole."""

    def fail(self, key):
        raise SyntaxError("broken")

    monkeypatch.setattr(codegen.TouchedCode, "get", fail)
    mended, report = graphmend.mend(module.calls_both, report=True)
    assert mended.__code__ is module.calls_both.__code__
    assert [(n.qualname, n.status, n.reason) for n in report.notes] == [
        ("calls_both", "skipped", "the mended source does not compile: broken")
    ]


def test_a_walk_that_looks_up_more_reads_the_files_own_entry(module, monkeypatch):
    """The bundle holds what the walk looked up in each file: a later walk from the same
    root that reaches another function of the file (a global rebound since) reads the
    file's own entry, gives what an empty cache gives, and writes the bundle again."""
    graphmend.mend(module.calls_both)
    monkeypatch.setattr(module, "pick", module.Model.forward)
    _new_process()
    read = _loads(monkeypatch)
    mended, report = graphmend.mend(module.calls_both, report=True)
    assert len(read) == 2  # the bundle, then the file's own entry
    assert any(n.qualname == "Model.forward" for n in report.notes)
    _new_process()
    del read[:]
    again, again_report = graphmend.mend(module.calls_both, report=True)
    assert len(read) == 1
    monkeypatch.setattr(mender, "_cache_dir", lambda: None)
    _new_process()
    fresh, fresh_report = graphmend.mend(module.calls_both, report=True)
    for got in (report, again_report):
        assert got.notes == fresh_report.notes and got.diagnostics == fresh_report.diagnostics
    for got in (mended, again):
        assert got.__code__.co_code == fresh.__code__.co_code
