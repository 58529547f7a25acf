"""`graphmend run`: the script runs as __main__ with its arguments and exit code,
the hook mends the packages it detects (or is told), the script itself is mended, --report
and --list-packages print what they should. Each test writes a script and small local
packages to tmp_path and runs a fresh interpreter (os.environ inherited)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from cli_helpers import graphmend
from graphmend.cli import run as cli

MODELS_INIT = "from .layers import Gate\n"
MODELS_LAYERS = """\
import torch


class Gate(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        if x.sum() > 0:
            y = x * 2
        else:
            y = x - 1
        print("gate", y.shape[0])
        return y
"""
UTILS = "def helper():\n    return 1\n"  # no model: never hooked by default

ARGS_SCRIPT = """\
import os, sys
import gmc_utils
print("name", __name__)
print("argv", sys.argv)
print("path0", sys.path[0])
print("helper", gmc_utils.helper())
sys.exit(int(sys.argv[1]))
"""


def write(folder: Path, files: dict) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    write(
        folder,
        {
            "gmc_models/__init__.py": MODELS_INIT,
            "gmc_models/layers.py": MODELS_LAYERS,
            "gmc_utils/__init__.py": UTILS,
        },
    )
    return folder


def graphmend_run(*args, cwd, env=None):
    return graphmend("run", *args, cwd=cwd, env=env)


def test_arguments_name_path_and_exit_code(project, tmp_path):
    write(project, {"args.py": ARGS_SCRIPT})
    proc = graphmend_run("--no-cache", project / "args.py", "7", "--report", "-x", cwd=tmp_path)
    assert proc.returncode == 7, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "name __main__"
    assert lines[1] == f"argv [{str(project / 'args.py')!r}, '7', '--report', '-x']"
    assert lines[2] == f"path0 {project}"
    assert lines[3] == "helper 1"
    assert "graphmend:" not in proc.stderr  # --report after the script is the script's


def test_exit_code_zero_and_uncaught_exception(project, tmp_path):
    write(project, {"ok.py": "print('fine')\n", "bad.py": "x = 1\nraise KeyError('nope')\n"})
    ok = graphmend_run("--no-cache", project / "ok.py", cwd=tmp_path)
    assert (ok.returncode, ok.stdout) == (0, "fine\n")
    bad = graphmend_run("--no-cache", project / "bad.py", cwd=tmp_path)
    assert bad.returncode == 1
    assert f'File "{project / "bad.py"}", line 2' in bad.stderr and "KeyError: 'nope'" in bad.stderr


def test_missing_script_and_refused_package(tmp_path):
    missing = graphmend_run(tmp_path / "nope.py", cwd=tmp_path)
    assert missing.returncode == 2 and "cannot open" in missing.stderr
    (tmp_path / "s.py").write_text("print('ran')\n")
    refused = graphmend_run("--package", "torch", tmp_path / "s.py", cwd=tmp_path)
    assert (
        refused.returncode == 2 and "never mended" in refused.stderr and "ran" not in refused.stdout
    )


DETECT_SCRIPT = """\
import os, json
import sys as system
from collections import OrderedDict
import torch
import numpy
import graphmend
import gmc_utils
from gmc_models.layers import Gate
from . import sibling_relative_import_is_ignored
try:
    import gmc_not_installed
except ImportError:
    pass
"""


def test_list_packages_detects_model_packages(project, tmp_path):
    write(project, {"detect.py": DETECT_SCRIPT})
    proc = graphmend_run("--list-packages", project / "detect.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["gmc_models"]

    explicit = graphmend_run(
        "--list-packages", "--package", "a", "--package", "b.c", project / "detect.py", cwd=tmp_path
    )
    assert explicit.stdout.splitlines() == ["a", "b.c"]


def test_imported_packages_and_model_packages_in_process(project, monkeypatch):
    assert cli.imported_packages(DETECT_SCRIPT) == [
        "os",
        "json",
        "sys",
        "collections",
        "torch",
        "numpy",
        "graphmend",
        "gmc_utils",
        "gmc_models",
        "gmc_not_installed",
    ]
    monkeypatch.syspath_prepend(str(project))
    assert cli.model_packages(DETECT_SCRIPT) == ["gmc_models"]


MODEL_SCRIPT = """\
import sys
import torch
import gmc_models.layers


def double(x: torch.Tensor):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x + 1
    return y


compiled = torch.compile(double, backend="eager")
print("out", compiled(torch.ones(2)).tolist())
print("script mended", "__graphmend_rt__" in globals())
print("package mended", "__graphmend_rt__" in vars(gmc_models.layers))
torch._dynamo.reset()
print("script breaks", torch._dynamo.explain(double)(torch.ones(2)).graph_break_count)
gate = gmc_models.layers.Gate()
torch._dynamo.reset()
print("gate breaks", torch._dynamo.explain(gate)(-torch.ones(3)).graph_break_count)
"""


def test_report_and_mending_of_packages_and_script(project, tmp_path):
    write(project, {"model.py": MODEL_SCRIPT})
    cache = tmp_path / "cache"
    proc = graphmend_run("--report", "--cache-dir", cache, project / "model.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[:5] == [
        "out [2.0, 2.0]",
        "script mended True",
        "package mended True",
        "script breaks 0",
        "gate breaks 0",
    ]
    # The deferred print of Gate.forward under explain is replayed before the script ends.
    assert out[5:] == ["gate 3"]
    assert (
        "graphmend: hooked gmc_models: 2 module(s) mended, 0 from the cache, 0 failed"
        in proc.stderr
    )
    # --report lists the sites (paths relative to the working directory, 1-based columns).
    report = proc.stderr.splitlines()
    assert (
        "project/gmc_models/layers.py:6:12: GM101 branch on tensor value `x.sum() > 0` [fixable: where]"
        in report
    )
    assert (
        'project/gmc_models/layers.py:10:9: GM102 print call `print("gate", y.shape[0])` [fixable: defer]'
        in report
    )
    assert (
        "project/model.py:7:8: GM101 branch on tensor value `x.sum() > 0` [fixable: where]"
        in report
    )
    assert "Found 3 break sites in 2 files: 3 fixable." in report
    assert len(list(cache.rglob("*.gmc"))) == 2

    again = graphmend_run("--report", "--cache-dir", cache, project / "model.py", cwd=tmp_path)
    assert "0 module(s) mended, 2 from the cache" in again.stderr
    assert again.stdout == proc.stdout

    plain = graphmend_run(
        "--no-mend-script",
        "--package",
        "gmc_utils",
        "--no-cache",
        project / "model.py",
        cwd=tmp_path,
    )
    assert plain.returncode == 0, plain.stderr
    lines = plain.stdout.splitlines()
    assert lines[:5] == [
        "out [2.0, 2.0]",
        "script mended False",
        "package mended False",
        "script breaks 1",
        "gate 3",
    ]
    assert lines[5].startswith("gate breaks ") and int(lines[5].split()[-1]) >= 1


def test_no_cache_writes_nothing(project, tmp_path):
    write(project, {"imp.py": "import gmc_utils\nprint('ok')\n"})
    default = tmp_path / "default-cache"
    env = {"GRAPHMEND_CACHE_DIR": str(default)}
    proc = graphmend_run(
        "--no-cache",
        "--report",
        "--package",
        "gmc_utils",
        project / "imp.py",
        cwd=tmp_path,
        env=env,
    )
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stderr
    assert "1 module(s) mended" in proc.stderr and not default.exists()
    proc = graphmend_run("--package", "gmc_utils", project / "imp.py", cwd=tmp_path, env=env)
    assert proc.returncode == 0 and len(list(default.rglob("*.gmc"))) == 1
