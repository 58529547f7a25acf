"""The import hook (graphmend.install): which modules it mends, that mended modules behave
like the originals, line numbers, the on-disk cache, failures, and real transformers.

Each test writes small packages with unique names under tmp_path; the `pkgroot` fixture puts
that folder on sys.path and removes the packages and every hook afterwards. Cache tests run
fresh interpreters (subprocesses inherit os.environ, so they import the same graphmend)."""

from __future__ import annotations

import gc
import importlib
import importlib.machinery
import importlib.util
import inspect
import itertools
import json
import logging
import marshal
import os
import subprocess
import sys
import traceback
import uuid
from pathlib import Path

import pytest
import torch

import graphmend
import graphmend.cache as cache_module
import graphmend.runtime
from graphmend import GraphMendWarning

REPO_ROOT = Path(__file__).resolve().parents[2]

MODEL_SRC = """\
import logging

import torch

logger = logging.getLogger(__name__)


def step(x: torch.Tensor):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    print("step", y)
    logger.warning("step done %d", x.shape[0])
    return y + 1
"""

# The multi-line f-string in the logger call becomes one line: the mended text is shorter.
LINES_SRC = """\
import logging

import torch

logger = logging.getLogger(__name__)


def fancy(x: torch.Tensor):
    n = x.shape[0]
    logger.warning(
        f"fancy {n}"
        f" rows"
    )
    return x.relu() * 3


def pick(x: torch.Tensor):
    if x.sum() > 0:  # predicated: more lines than the branch, so boom's lines move
        y = x * 2
    else:
        y = x - 1
    return y


def boom(x):
    y = x + 1
    raise RuntimeError(f"boom {y.shape[0]}")
"""

INPUTS = ([1.0, 2.0, 3.0], [-1.0, -2.0, 0.5], [0.0, 0.0, 0.0])  # > 0, < 0, == 0 (else branch)

_counter = itertools.count()


def line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(source.splitlines(), 1) if text in line)


@pytest.fixture
def pkgroot(tmp_path, monkeypatch):
    root = tmp_path / "src"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    before = set(sys.modules)
    yield root
    graphmend.uninstall()
    graphmend.runtime.discard()
    for name in set(sys.modules) - before:
        if name.startswith("gmh_"):
            del sys.modules[name]


def make_package(root: Path, files: dict, name: str | None = None) -> str:
    name = name or f"gmh_{next(_counter)}_{uuid.uuid4().hex[:6]}"
    folder = root / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for filename, text in files.items():
        (folder / filename).write_text(text)
    importlib.invalidate_caches()
    return name


def is_mended(module) -> bool:
    return "__graphmend_rt__" in vars(module)


def run_branches(module, capsys, caplog):
    """Outputs, printed text and log records of `step` over INPUTS, called eagerly."""
    capsys.readouterr()
    caplog.clear()
    outputs = [module.step(torch.tensor(v)) for v in INPUTS]
    return outputs, capsys.readouterr().out, log_records(caplog)


def log_records(caplog):
    return [
        (r.levelname, r.getMessage(), r.lineno, r.funcName, os.path.basename(r.pathname))
        for r in caplog.records
    ]


def break_count(fn, x) -> int:
    torch._dynamo.reset()
    return torch._dynamo.explain(fn)(x).graph_break_count


# -- what is mended ----------------------------------------------------------------------------


def test_hooked_module_is_mended_and_behaves_like_the_original(pkgroot, tmp_path, capsys, caplog):
    hooked = make_package(pkgroot, {"model.py": MODEL_SRC})
    plain = make_package(pkgroot, {"model.py": MODEL_SRC})
    with graphmend.install([hooked], cache_dir=str(tmp_path / "cache")) as hook:
        mended = importlib.import_module(hooked + ".model")
    original = importlib.import_module(plain + ".model")

    assert is_mended(mended) and not is_mended(original)
    assert hook.stats.mended == 2 and hook.stats.failed == 0  # __init__ and model
    assert graphmend.hook.mended_at_import(mended.__file__)
    assert not graphmend.hook.mended_at_import(original.__file__)
    assert {d.code for d in hook.report().fixed} >= {"GM101", "GM102", "GM103"}

    caplog.set_level(logging.WARNING)
    got, got_out, got_logs = run_branches(mended, capsys, caplog)
    want, want_out, want_logs = run_branches(original, capsys, caplog)
    for a, b in zip(got, want):
        assert torch.equal(a, b)
    assert got_out == want_out and "tensor([2., 4., 6.])" in want_out
    assert got_logs == want_logs and len(want_logs) == len(INPUTS)


def test_hooked_module_compiles_without_breaks_and_replays_at_flush(
    pkgroot, tmp_path, capsys, caplog
):
    hooked = make_package(pkgroot, {"model.py": MODEL_SRC})
    plain = make_package(pkgroot, {"model.py": MODEL_SRC})
    graphmend.install([hooked], cache_dir=str(tmp_path / "cache"))
    mended = importlib.import_module(hooked + ".model")
    original = importlib.import_module(plain + ".model")
    x = torch.tensor(INPUTS[1])

    assert break_count(original.step, x) >= 2
    assert break_count(mended.step, x) == 0
    graphmend.runtime.discard()

    caplog.set_level(logging.WARNING)
    _, want_out, want_logs = run_branches(original, capsys, caplog)
    torch._dynamo.reset()
    compiled = torch.compile(mended.step, backend="eager", fullgraph=True)
    capsys.readouterr()
    caplog.clear()
    outputs = [compiled(torch.tensor(v)) for v in INPUTS]
    assert capsys.readouterr().out == "" and graphmend.runtime.pending()
    graphmend.runtime.flush()
    assert capsys.readouterr().out == want_out
    assert log_records(caplog) == want_logs
    for got, v in zip(outputs, INPUTS):
        assert torch.equal(got, original.step(torch.tensor(v)))


def test_graphmend_mend_skips_functions_mended_at_import(pkgroot, tmp_path):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    graphmend.install([name], cache_dir=str(tmp_path / "cache"))
    module = importlib.import_module(name + ".model")
    again, report = graphmend.mend(module.step, report=True)
    assert again is module.step
    assert [n.reason for n in report.notes] == ["mended at import (graphmend.install)"]


def test_compile_of_a_hooked_module_compiles_it_without_a_copy(pkgroot, tmp_path, capsys):
    source = MODEL_SRC + (
        "\n\nclass Stepper(torch.nn.Module):\n    def forward(self, x):\n        return step(x)\n"
    )
    hooked = make_package(pkgroot, {"model.py": source})
    plain = make_package(pkgroot, {"model.py": source})
    graphmend.install([hooked], cache_dir=str(tmp_path / "cache"))
    mended = importlib.import_module(hooked + ".model")
    original = importlib.import_module(plain + ".model")
    torch._dynamo.reset()
    model = mended.Stepper()
    compiled = graphmend.compile(model, backend="eager")
    assert compiled._orig_mod is model  # nothing left to rebuild: no copy
    for v in INPUTS:
        capsys.readouterr()
        want = original.step(torch.tensor(v))
        want_out = capsys.readouterr().out
        got = compiled(torch.tensor(v))
        assert torch.equal(got, want)
        assert capsys.readouterr().out == want_out  # replayed at the boundary
    assert graphmend.runtime.pending() == []


def test_file_loaded_by_hand_inside_a_hooked_package_is_mended(pkgroot, tmp_path):
    hooked = make_package(pkgroot, {"extra.py": MODEL_SRC})
    plain = make_package(pkgroot, {"extra.py": MODEL_SRC})
    graphmend.install([hooked], cache_dir=str(tmp_path / "cache"))

    def load(package):
        name = f"gmh_loose_{uuid.uuid4().hex[:6]}"
        spec = importlib.util.spec_from_file_location(name, pkgroot / package / "extra.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    loose, control = load(hooked), load(plain)
    assert is_mended(loose) and not is_mended(control)
    x = torch.tensor(INPUTS[0])
    assert torch.equal(loose.step(x), control.step(x))
    assert break_count(loose.step, x) == 0


def test_unlisted_packages_are_untouched(pkgroot, tmp_path):
    hooked = make_package(pkgroot, {"model.py": MODEL_SRC})
    other = make_package(pkgroot, {"model.py": MODEL_SRC})
    hook = graphmend.install([hooked], cache_dir=str(tmp_path / "cache"))
    module = importlib.import_module(other + ".model")
    assert not is_mended(module)
    assert hook.stats.mended == 0 and hook.stats.cache_hits == 0
    assert not graphmend.hook.mended_at_import(module.__file__)


def test_subpackages_of_a_listed_package_are_mended(pkgroot, tmp_path):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    (pkgroot / name / "sub").mkdir()
    (pkgroot / name / "sub" / "__init__.py").write_text("")
    (pkgroot / name / "sub" / "deep.py").write_text(MODEL_SRC)
    importlib.invalidate_caches()
    graphmend.install([name], cache_dir=None)
    assert is_mended(importlib.import_module(name + ".sub.deep"))


@pytest.mark.parametrize(
    "package", ["torch", "torch.nn", "functorch", "numpy", "os", "json.decoder", "graphmend", ""]
)
def test_never_mended_packages_are_refused(package):
    before = importlib.machinery.SourceFileLoader.get_code
    with pytest.raises(ValueError):
        graphmend.install([package])
    assert importlib.machinery.SourceFileLoader.get_code is before


def test_no_packages_is_refused():
    with pytest.raises(ValueError):
        graphmend.install([])


# -- lifetime ----------------------------------------------------------------------------------


def test_uninstall_restores_the_loader(pkgroot):
    original = importlib.machinery.SourceFileLoader.get_code
    first = graphmend.install(["gmh_a"], cache_dir=None)
    second = graphmend.install(["gmh_b"], cache_dir=None)
    assert importlib.machinery.SourceFileLoader.get_code is not original
    first.uninstall()
    assert importlib.machinery.SourceFileLoader.get_code is not original  # `second` remains
    assert second.installed and not first.installed
    second.uninstall()
    assert importlib.machinery.SourceFileLoader.get_code is original
    assert "get_code" not in importlib.machinery.SourceFileLoader.__dict__


def test_context_manager_and_module_uninstall_restore_the_loader(pkgroot, tmp_path):
    original = importlib.machinery.SourceFileLoader.get_code
    with graphmend.install(["gmh_c"], cache_dir=None) as hook:
        assert hook.installed
        assert importlib.machinery.SourceFileLoader.get_code is not original
    assert not hook.installed
    assert importlib.machinery.SourceFileLoader.get_code is original

    graphmend.install(["gmh_d"], cache_dir=None)
    graphmend.install(["gmh_e"], cache_dir=None)
    graphmend.uninstall()
    assert importlib.machinery.SourceFileLoader.get_code is original

    # After uninstall a listed package imports unchanged.
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    with graphmend.install([name], cache_dir=None):
        pass
    assert not is_mended(importlib.import_module(name + ".model"))


def test_uninstall_restores_a_get_code_patched_by_someone_else(monkeypatch):
    loader = importlib.machinery.SourceFileLoader
    inherited = loader.get_code

    def theirs(self, fullname):
        return inherited(self, fullname)

    monkeypatch.setattr(loader, "get_code", theirs, raising=False)
    with graphmend.install(["gmh_f"], cache_dir=None):
        assert loader.get_code is not theirs
    assert loader.__dict__.get("get_code") is theirs


def test_installing_after_the_package_was_imported_warns(pkgroot):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    importlib.import_module(name)
    with pytest.warns(GraphMendWarning, match=f"{name} already imported"):
        graphmend.install([name], cache_dir=None)
    # Its submodules imported later are still mended.
    assert is_mended(importlib.import_module(name + ".model"))


# -- failures ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [cache_module.Unmendable("simulated mender failure"), RuntimeError("simulated mender failure")],
)
def test_module_that_fails_to_mend_is_imported_unchanged_with_a_warning(
    pkgroot, monkeypatch, error
):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})

    def fail(path, data, options):
        raise error

    monkeypatch.setattr(cache_module, "mend_module", fail)
    hook = graphmend.install([name], cache_dir=None)
    with pytest.warns(
        GraphMendWarning, match=rf"{name}\.model .*simulated mender failure"
    ) as caught:
        module = importlib.import_module(name + ".model")
    assert not is_mended(module)
    assert hook.stats.failed == 2 and hook.stats.mended == 0  # __init__ and model
    assert any(f"{name}.model" in str(w.message) for w in caught)
    x = torch.tensor(INPUTS[0])
    assert torch.equal(module.step(x), x * 2 + 1)


# -- line numbers ------------------------------------------------------------------------------


def test_line_numbers_point_at_the_original_file(pkgroot, tmp_path, caplog):
    name = make_package(pkgroot, {"lines.py": LINES_SRC})
    path = str(pkgroot / name / "lines.py")
    result = graphmend.mend_source(LINES_SRC, path, trace_all=True)
    line_map = list(result.line_map)
    assert line_map != list(range(1, len(line_map) + 1))  # lines moved

    graphmend.install([name], cache_dir=str(tmp_path / "cache"))
    module = importlib.import_module(name + ".lines")
    assert is_mended(module)
    assert module.boom.__code__.co_filename == path

    for fn, header in ((module.fancy, "def fancy"), (module.boom, "def boom")):
        assert fn.__code__.co_firstlineno == line_of(LINES_SRC, header)
        lines, first = inspect.getsourcelines(fn)
        assert first == line_of(LINES_SRC, header)
        assert lines[0].startswith(header)

    with pytest.raises(RuntimeError, match="boom 3") as info:
        module.boom(torch.ones(3))
    frame = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (frame.filename, frame.lineno) == (path, line_of(LINES_SRC, "raise RuntimeError"))
    assert frame.line == 'raise RuntimeError(f"boom {y.shape[0]}")'

    caplog.set_level(logging.WARNING)
    module.fancy(torch.ones(2))
    assert log_records(caplog) == [
        ("WARNING", "fancy 2 rows", line_of(LINES_SRC, "logger.warning("), "fancy", "lines.py")
    ]


# -- the cache ---------------------------------------------------------------------------------

CHILD = r"""
import contextlib, dataclasses, importlib, io, json, sys
import graphmend
root, package, cache = sys.argv[1:4]
sys.path.insert(0, root)
hook = graphmend.install([package], cache_dir=cache)
module = importlib.import_module(package + ".model")
import torch
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    outputs = [module.step(torch.tensor(v)).tolist() for v in %r]
print(json.dumps({"stats": dataclasses.asdict(hook.stats), "outputs": outputs,
                  "printed": printed.getvalue(), "mended": "__graphmend_rt__" in vars(module)}))
""" % (INPUTS,)


def child_command(root, package, cache):
    return [sys.executable, "-c", CHILD, str(root), package, str(cache)]


def child_result(proc_stdout: str) -> dict:
    result = json.loads(proc_stdout.strip().splitlines()[-1])
    for timing_or_helper in ("seconds", "gc_seconds", "ahead"):
        result["stats"].pop(timing_or_helper)
    return result


def run_child(root, package, cache) -> dict:
    proc = subprocess.run(
        child_command(root, package, cache),
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return child_result(proc.stdout)


def cache_entries(cache: Path):
    return sorted(cache.rglob("*.gmc"))


def test_cache_is_reused_by_a_fresh_process(pkgroot, tmp_path):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    cache = tmp_path / "cache"
    first = run_child(pkgroot, name, cache)
    assert first["stats"] == {"mended": 2, "cache_hits": 0, "failed": 0}
    assert len(cache_entries(cache)) == 2
    second = run_child(pkgroot, name, cache)
    assert second["stats"] == {"mended": 0, "cache_hits": 2, "failed": 0}
    assert second["mended"] and second["outputs"] == first["outputs"]
    assert second["printed"] == first["printed"] != ""


def test_concurrent_processes_share_one_fresh_cache(pkgroot, tmp_path):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    cache = tmp_path / "cache"
    procs = [
        subprocess.Popen(
            child_command(pkgroot, name, cache),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        for _ in range(4)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err
        results.append(child_result(out))
    for result in results:
        assert result["mended"]
        assert result["stats"]["mended"] + result["stats"]["cache_hits"] == 2
        assert (result["outputs"], result["printed"]) == (
            results[0]["outputs"],
            results[0]["printed"],
        )
    assert len(cache_entries(cache)) == 2
    assert not [
        p for p in cache.rglob("*") if p.is_file() and p.suffix not in (".gmc", ".gmi")
    ]  # no temp files
    assert run_child(pkgroot, name, cache)["stats"]["cache_hits"] == 2


def forget(name: str) -> None:
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        del sys.modules[key]
    importlib.invalidate_caches()


def install_and_import(name: str, cache):
    """Imports `name`.model afresh under a new hook; returns (hook, module)."""
    forget(name)
    with graphmend.install([name], cache_dir=cache) as hook:
        return hook, importlib.import_module(name + ".model")


def test_edited_source_is_mended_again(pkgroot, tmp_path):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    cache = str(tmp_path / "cache")
    _, module = install_and_import(name, cache)
    assert module.step(torch.ones(1)).item() == 3.0
    (pkgroot / name / "model.py").write_text(MODEL_SRC.replace("return y + 1", "return y + 10"))
    hook, module = install_and_import(name, cache)
    assert hook.stats.mended == 1 and hook.stats.cache_hits == 1  # model re-mended, __init__ cached
    assert is_mended(module) and module.step(torch.ones(1)).item() == 12.0


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "other_key"])
def test_damaged_cache_entry_is_ignored_and_rewritten(pkgroot, tmp_path, damage):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    cache = tmp_path / "cache"
    install_and_import(name, str(cache))
    entries = cache_entries(cache)
    good = {p: p.read_bytes() for p in entries}
    for path, blob in good.items():
        if damage == "truncate":
            path.write_bytes(blob[: len(blob) // 2])
        elif damage == "garbage":
            path.write_bytes(b"\x00not marshal data" * 3)
        elif damage == "empty":
            path.write_bytes(b"")
        else:  # a whole entry stored under the wrong name
            key, code, diagnostics = marshal.loads(blob)
            path.write_bytes(marshal.dumps(("0" * len(key), code, diagnostics)))

    hook, module = install_and_import(name, str(cache))
    assert hook.stats.mended == 2 and hook.stats.cache_hits == 0 and hook.stats.failed == 0
    assert is_mended(module) and module.step(torch.ones(1)).item() == 3.0
    assert {p: p.read_bytes() for p in cache_entries(cache)} == good


def test_no_cache_writes_nothing(pkgroot, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHMEND_CACHE_DIR", str(tmp_path / "default"))
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    hook, _ = install_and_import(name, None)
    assert hook.stats.mended == 2 and not (tmp_path / "default").exists()
    hook, _ = install_and_import(name, "")  # "" = $GRAPHMEND_CACHE_DIR
    assert (
        hook.cache_dir == str(tmp_path / "default")
        and len(cache_entries(tmp_path / "default")) == 2
    )


# -- real transformers -------------------------------------------------------------------------

BART_CHILD = r"""
import sys
import graphmend
out_path, mode, cache = sys.argv[1:4]
if mode == "hook":
    hook = graphmend.install(["transformers"], cache_dir=cache)
sys.path.insert(0, sys.argv[4])
import torch, zoo
model, kwargs = zoo.build("bart", seed=0)
with torch.no_grad():
    logits = model(**kwargs).logits
    torch._dynamo.reset()
    explained = torch._dynamo.explain(model)(**kwargs)
torch.save({"logits": logits, "breaks": explained.graph_break_count}, out_path)
if mode == "hook":
    assert hook.stats.mended > 0 and hook.stats.failed == 0, hook.stats
    assert graphmend.hook.mended_at_import(sys.modules["transformers.models.bart.modeling_bart"].__file__)
"""


def test_transformers_bart_mended_at_import(tmp_path):
    pytest.importorskip("transformers")
    zoo_dir = REPO_ROOT / "bench" / "models"
    if not (zoo_dir / "zoo.py").exists():
        pytest.skip("bench/models/zoo.py is not in this checkout")
    procs = {}
    for mode in ("plain", "hook"):
        command = [
            sys.executable,
            "-c",
            BART_CHILD,
            str(tmp_path / f"{mode}.pt"),
            mode,
            str(tmp_path / "cache"),
            str(zoo_dir),
        ]
        procs[mode] = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ)
        )
    for mode, proc in procs.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{mode}:\n{err[-3000:]}"
    plain = torch.load(tmp_path / "plain.pt")
    hooked = torch.load(tmp_path / "hook.pt")
    assert plain["breaks"] > 0
    assert hooked["breaks"] == 0
    assert torch.equal(plain["logits"], hooked["logits"])


@pytest.mark.parametrize("jobs", [1, 2])
def test_prepare_fills_the_cache_so_the_first_start_mends_nothing(pkgroot, tmp_path, jobs):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    cache = tmp_path / "cache"
    stats = graphmend.prepare([name], cache_dir=str(cache), jobs=jobs)
    assert (stats.mended, stats.cache_hits, stats.failed) == (2, 0, 0)
    child = run_child(pkgroot, name, cache)
    assert child["stats"] == {"mended": 0, "cache_hits": 2, "failed": 0}
    assert child["mended"]
    again = graphmend.prepare([name], cache_dir=str(cache), jobs=jobs)
    assert (again.mended, again.cache_hits, again.failed) == (0, 2, 0)


def test_prepare_refuses_no_cache_and_never_mended_packages():
    with pytest.raises(ValueError, match="cache"):
        graphmend.prepare(["somepackage"], cache_dir=None)
    with pytest.raises(ValueError, match="never mended"):
        graphmend.prepare(["torch"], cache_dir="unused")


def test_warm_command_fills_the_cache(pkgroot, tmp_path):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    cache = tmp_path / "cache"
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(pkgroot), os.environ.get("PYTHONPATH", "")])
    )
    command = [sys.executable, "-m", "graphmend", "warm", name, "--cache-dir", str(cache)]
    first = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert first.returncode == 0, first.stderr
    assert "2 file(s) mended, 0 already cached, 0 failed" in first.stdout
    assert run_child(pkgroot, name, cache)["stats"] == {"mended": 0, "cache_hits": 2, "failed": 0}
    refused = subprocess.run(
        [*command[:4], "torch"], capture_output=True, text=True, env=env, timeout=120
    )
    assert refused.returncode == 2 and "never mended" in refused.stderr


def test_collection_timer_counts_only_collections_while_entered():
    from graphmend.hook import _CollectionTimer

    callbacks = list(gc.callbacks)
    with _CollectionTimer() as timer:
        gc.collect()
    inside = timer.seconds
    assert inside > 0
    gc.collect()
    assert timer.seconds == inside
    assert gc.callbacks == callbacks


def test_hook_stats_set_apart_collections_inside_the_hook(pkgroot, tmp_path):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    threshold = gc.get_threshold()
    gc.set_threshold(1)  # a collection at nearly every allocation, so some run in the hook
    try:
        with graphmend.install([name], cache_dir=str(tmp_path / "cache")) as hook:
            importlib.import_module(name + ".model")
    finally:
        gc.set_threshold(*threshold)
    assert hook.stats.mended == 2
    assert 0 < hook.stats.gc_seconds < hook.stats.seconds
    assert "in garbage collections" in str(hook.stats)
