"""Mending ahead (graphmend.ahead): the scan of a module's import statements, and the helper
process that fills the hook's cache with the modules the import reaches next.

The helper must never change what runs: its cache entries are byte for byte those the
importing process writes. The tests that it mends ahead make the import wait (a package
whose ``__init__`` polls the cache) instead of sleeping, so they hold on a slow machine."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import graphmend
import graphmend.cache as cache_module
from graphmend import ahead

from test_hook import MODEL_SRC, cache_entries, forget, make_package, pkgroot  # noqa: F401


@pytest.fixture(autouse=True)
def mending_ahead(monkeypatch):
    monkeypatch.setenv("GRAPHMEND_AHEAD", "1")
    # The helper pauses once the import has been quiet for a second; these imports wait
    # for it on purpose, and a loaded machine may take longer than that.
    monkeypatch.setattr(ahead, "_QUIET", 60.0)


def write(path: Path, text: str = "") -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return str(path)


# -- the scan ----------------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path):
    """A package `pkg` with modules and subpackages, and the file paths by short name."""
    root = tmp_path / "pkg"
    files = {
        name: write(root / rel)
        for name, rel in {
            "init": "__init__.py",
            "b": "b.py",
            "sub": "sub/__init__.py",
            "c": "sub/c.py",
            "d": "sub/d.py",
            "e": "e.py",
            "f": "f.py",
            "h": "h.py",
            "deep": "sub/deep/__init__.py",
            "never": "never.py",
            "lazy": "lazy.py",
        }.items()
    }
    return root, files


def scan(tree, text: str, module: str = "a.py"):
    root, files = tree
    found = ahead.static_imports(str(root / module), text, {"pkg": str(root)})
    by_path = {path: name for name, path in files.items()}
    return [by_path.get(path, path) for path in found]


def test_scan_reads_relative_and_absolute_imports_in_order(tree):
    text = (
        "import os\n"
        "from . import b, sub as s\n"
        "from .sub import c\n"
        "from .sub.d import thing\n"
        "import pkg.e, json\n"
        "from pkg import f as g\n"
        "from torch import nn\n"
    )
    assert scan(tree, text) == ["init", "b", "sub", "c", "d", "e", "f"]


def test_scan_follows_blocks_that_run_at_import_and_skips_those_that_do_not(tree):
    text = (
        "try:\n"
        "    from .h import x\n"
        "except ImportError:\n"
        "    pass\n"
        "if TYPE_CHECKING:\n"
        "    from .never import y\n"
        "def load():\n"
        "    from .lazy import z\n"
        "if sys.version_info >= (3, 11):\n"
        "    from .sub.deep import w\n"
    )
    assert scan(tree, text) == ["h", "sub", "deep"]


def test_scan_resolves_parent_relative_imports_and_ignores_what_is_not_there(tree):
    text = "from ..b import x\nfrom .missing import y\nfrom ... import nothing\n"
    assert scan(tree, text, module="sub/c.py") == ["b"]


def test_own_modules_of_imported_packages_come_after_the_imports(tree):
    root, files = tree
    Path(files["d"]).write_text("x = 1\n" * 50)
    Path(files["c"]).write_text("x = 1\n" * 10)
    sub_modules = [files["d"], files["c"], files["sub"]]  # largest first (__init__ is empty)
    imports = [files["b"], files["sub"]]
    assert ahead._own_modules(files["b"], imports, requested=True)[:3] == sub_modules
    # The import loads pkg itself: pkg's own modules first, then sub's.
    own = ahead._own_modules(files["init"], imports, requested=True)
    assert set(own[: len(own) - 3]) == {
        p for p in files.values() if os.path.dirname(p) == str(root)
    }
    assert own[-3:] == sub_modules
    # Scanned ahead of the import (not asked for): only the imported packages' modules.
    assert ahead._own_modules(files["init"], imports, requested=False) == sub_modules


def test_scan_of_real_transformers_finds_the_shared_modules():
    transformers = pytest.importorskip("transformers")
    folder = os.path.dirname(transformers.__file__)
    path = os.path.join(folder, "models", "bart", "modeling_bart.py")
    found = ahead.static_imports(path, Path(path).read_text(), {"transformers": folder})
    names = [os.path.relpath(p, folder) for p in found]
    assert "modeling_utils.py" in names and "activations.py" in names
    assert all(os.path.isfile(p) for p in found)


# -- the order of work -------------------------------------------------------------------------

IMPORTS = {"pkg/__init__.py": ["pkg/a.py", "pkg/b.py"], "pkg/a.py": ["pkg/c.py"]}
OWN_MODULES = {"pkg/__init__.py": ["pkg/big.py", "pkg/a.py"]}


def test_work_follows_the_import_depth_first_then_the_package_then_the_idle_list():
    work = ahead._Work(["core/large.py", "core/small.py"], quiet=60.0, idle_exit=60.0)
    work.request("pkg/__init__.py")
    order = []
    while not order or order[-1][0] != "core/small.py":
        path, mend = work.next()
        order.append((path, mend))
        work.scanned(path, IMPORTS.get(path, []), [] if mend else OWN_MODULES.get(path, []))
    assert order == [
        ("pkg/__init__.py", False),  # asked for: scanned, mended by the import itself
        ("pkg/a.py", True),
        ("pkg/c.py", True),
        ("pkg/b.py", True),  # its imports, depth first
        ("pkg/big.py", True),  # then the package's own modules (a.py is done)
        ("core/large.py", True),
        ("core/small.py", True),  # then the idle list, largest first
    ]
    work.request("pkg/__init__.py")  # asked for again: scanned already, nothing left to do
    work.close()
    assert work.next() is None


def test_work_waits_while_the_import_is_quiet_and_ends_when_it_stays_so():
    work = ahead._Work(["core/x.py"], quiet=0.05, idle_exit=0.3)
    work._last_request -= 1.0  # the import asked for its last module a second ago
    assert work.next() is None  # nothing taken from the idle list; gave up at idle_exit


def test_work_resumes_at_the_next_request():
    work = ahead._Work(["core/x.py"], quiet=0.05, idle_exit=30.0)
    work._last_request -= 1.0
    threading.Timer(0.2, work.request, args=("pkg/b.py",)).start()
    assert work.next() == ("pkg/b.py", False)


# -- the helper --------------------------------------------------------------------------------

# The package's __init__ waits until the helper has mended the modules it imports, so the
# import finds them in the cache whatever the machine's speed.
WAIT_FOR_CACHE = """\
import pathlib, time
_deadline = time.monotonic() + 60
while len(list(pathlib.Path({cache!r}).rglob("*.gmc"))) < {count} and time.monotonic() < _deadline:
    time.sleep(0.01)
from . import model
"""

CHAIN_SRC = MODEL_SRC + "\nfrom . import second\n"


def make_chain(root: Path, cache: Path) -> str:
    """__init__ -> model -> second, each with something to mend; __init__ waits for the
    helper to have mended model and second (3 entries with its own)."""
    name = make_package(root, {"model.py": CHAIN_SRC, "second.py": MODEL_SRC})
    (root / name / "__init__.py").write_text(WAIT_FOR_CACHE.format(cache=str(cache), count=3))
    return name


def test_helper_mends_what_the_import_reaches_next(pkgroot, tmp_path):
    cache = tmp_path / "cache"
    name = make_chain(pkgroot, cache)
    with graphmend.install([name], cache_dir=str(cache)) as hook:
        module = __import__(name + ".model", fromlist=["step"])
        stats = hook.stats
    assert stats.ahead and stats.failed == 0
    # model and second by the helper; __init__ by whichever came first
    assert stats.cache_hits >= 2 and stats.mended + stats.cache_hits == 3
    assert "__graphmend_rt__" in vars(module) and "__graphmend_rt__" in vars(module.second)


def test_helper_entries_are_what_the_import_would_write(pkgroot, tmp_path):
    cache = tmp_path / "cache"
    name = make_chain(pkgroot, cache)
    with graphmend.install([name], cache_dir=str(cache)) as hook:
        __import__(name + ".model")
    assert hook.stats.cache_hits == 2
    for entry in cache_entries(cache):
        key, _, _ = marshal.loads(entry.read_bytes())
        path = next(
            str(p)
            for p in (pkgroot / name).glob("*.py")
            if hook._key(str(p), p.read_bytes()) == key
        )
        code, diagnostics = cache_module.mend_module(path, Path(path).read_bytes(), hook.options)
        # Equal code objects (marshal's bytes also record reference counts at the time).
        assert marshal.loads(entry.read_bytes()) == (key, code, diagnostics)
        assert code is None or code.co_consts == marshal.loads(entry.read_bytes())[1].co_consts


def test_helper_starts_at_install_when_the_package_is_not_cached(pkgroot, tmp_path):
    cache = tmp_path / "cache"
    name = make_package(pkgroot, {"model.py": MODEL_SRC, "second.py": MODEL_SRC})
    with graphmend.install([name], cache_dir=str(cache)) as hook:
        assert hook.stats.ahead  # before any import: it mends the package's own modules
        deadline = time.monotonic() + 60
        while len(cache_entries(cache)) < 3 and time.monotonic() < deadline:  # as WAIT_FOR_CACHE
            time.sleep(0.01)
        __import__(name + ".model")
        __import__(name + ".second")
    assert (hook.stats.mended, hook.stats.cache_hits, hook.stats.failed) == (0, 3, 0)


def import_chain(pkgroot, tmp_path):
    """A chain package imported under a hook left installed; (hook, its helper)."""
    cache = tmp_path / "cache"
    name = make_chain(pkgroot, cache)
    hook = graphmend.install([name], cache_dir=str(cache))
    __import__(name + ".model")
    return hook, hook._helper


def test_helper_stops_on_uninstall(pkgroot, tmp_path):
    hook, helper = import_chain(pkgroot, tmp_path)
    assert helper is not None and helper.running
    started = time.monotonic()
    graphmend.uninstall()
    assert not helper.running and hook._helper is None
    assert time.monotonic() - started < ahead._CLOSE_TIMEOUT + 5  # a busy machine: no hang


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="POSIX priorities")
def test_helper_runs_at_a_lower_priority_than_the_import(pkgroot, tmp_path):
    hook, helper = import_chain(pkgroot, tmp_path)
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, helper._process.pid) == min(19, ours + ahead._NICENESS)


def test_filled_cache_starts_no_helper(pkgroot, tmp_path):
    cache = tmp_path / "cache"
    name = make_chain(pkgroot, cache)
    with graphmend.install([name], cache_dir=str(cache)):
        __import__(name + ".model")
    forget(name)
    with graphmend.install([name], cache_dir=str(cache)) as hook:
        __import__(name + ".model")
    assert (hook.stats.mended, hook.stats.cache_hits) == (0, 3)
    assert not hook.stats.ahead and hook._helper is None


@pytest.mark.parametrize("how", ["environment", "argument", "no cache"])
def test_helper_can_be_turned_off(pkgroot, tmp_path, monkeypatch, how):
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    cache = None if how == "no cache" else str(tmp_path / "cache")
    if how == "environment":
        monkeypatch.setenv("GRAPHMEND_AHEAD", "0")
    with graphmend.install([name], cache_dir=cache, ahead=how != "argument") as hook:
        __import__(name + ".model")
    assert hook.stats.mended == 2 and not hook.stats.ahead and hook._helper is None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_forked_child_leaves_the_parents_helper_alone(pkgroot, tmp_path):
    _, helper = import_chain(pkgroot, tmp_path)
    pid = os.fork()
    if pid == 0:  # the child: uninstalling here must not stop the parent's helper
        try:
            graphmend.uninstall()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert helper.running
    graphmend.uninstall()
    assert not helper.running


def test_helper_that_died_leaves_the_import_to_mend_alone(pkgroot, tmp_path):
    cache = tmp_path / "cache"
    first = make_package(pkgroot, {"model.py": MODEL_SRC})
    later = make_package(pkgroot, {"model.py": MODEL_SRC})
    with graphmend.install([first, later], cache_dir=str(cache)) as hook:
        __import__(first + ".model")
        hook._helper._process.kill()
        hook._helper._process.wait()
        module = __import__(later + ".model", fromlist=["step"])
        assert not hook._helper.running  # told of `later`, found it gone
    assert hook.stats.failed == 0 and "__graphmend_rt__" in vars(module)


def test_helper_process_imports_nothing_of_the_package(tmp_path):
    """The helper only reads files: a module whose body would leave a mark when run is
    mended ahead without running."""
    root = tmp_path / "src"
    mark = tmp_path / "ran"
    package = root / "gmh_quiet"
    write(package / "__init__.py", "from . import loud\n")
    write(package / "loud.py", f"open({str(mark)!r}, 'w').close()\n" + MODEL_SRC)
    cache = tmp_path / "cache"
    code = (
        "import sys, time, pathlib; sys.path.insert(0, sys.argv[1]);"
        "import graphmend.hook as h, graphmend.ahead as a;"
        "hook = h.ImportHook(('gmh_quiet',), {'where': True, 'defer': True, 'trap': True}, sys.argv[2]);"
        "helper = a.Helper(hook); helper.tell(sys.argv[3]);"
        "end = time.monotonic() + 60\n"
        "while not list(pathlib.Path(sys.argv[2]).rglob('*.gmc')) and time.monotonic() < end: time.sleep(0.01)\n"
        "helper.close()"
    )
    env = dict(os.environ, GRAPHMEND_AHEAD="1")
    done = subprocess.run(
        [sys.executable, "-c", code, str(root), str(cache), str(package / "__init__.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert len(cache_entries(cache)) == 1 and not mark.exists()


def test_mending_at_import_loads_only_what_the_helper_needs(tmp_path):
    """The helper is a fresh interpreter racing the import: mending a module through the hook
    must not load the mender of live objects (graphmend.api) or what only the importing
    process uses (subprocess)."""
    module = tmp_path / "gmh_lean.py"
    write(module, MODEL_SRC)
    code = (
        "import sys, graphmend.ahead, graphmend.hook as h;"
        "hook = h.ImportHook(('gmh_lean',), {'where': True, 'defer': True, 'trap': True}, None);"
        "path = sys.argv[1]; assert hook.covers('gmh_lean', path);"
        "assert hook.code_for('gmh_lean', path, open(path, 'rb').read()) is not None;"
        "print(sorted(m for m in ('graphmend.api', 'subprocess') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(module)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_no_helper_on_one_cpu(pkgroot, tmp_path, monkeypatch):
    monkeypatch.setattr(ahead, "_usable_cpus", lambda: 1)
    name = make_package(pkgroot, {"model.py": MODEL_SRC})
    with graphmend.install([name], cache_dir=str(tmp_path / "cache")) as hook:
        __import__(name + ".model")
    assert hook.stats.mended == 2 and not hook.stats.ahead
