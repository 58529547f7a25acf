"""``graphmend explain``, and ``run``/``warm`` as §4.6 of the spec fixed them: the output order
of a script that compiles by itself, --report as JSON, a syntax error without GraphMend
frames, an unknown package. Also the pre-commit hook, run with pre-commit itself."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from cli_helpers import EXAMPLE, copy_example, graphmend
from conftest import REPO_ROOT

ORDER_SCRIPT = textwrap.dedent(
    """\
    import torch


    class Net(torch.nn.Module):
        def forward(self, x: torch.Tensor):
            print("h mean", round(float(x.mean()), 2))
            return x * 2


    c = torch.compile(Net(), backend="eager")
    for step in range(2):
        c(torch.ones(2) * step)
        print("step", step)
    """
)


def test_run_keeps_the_output_order_of_a_script_that_compiles(tmp_path):
    (tmp_path / "train.py").write_text(ORDER_SCRIPT)
    plain = subprocess.run(
        [sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert plain.returncode == 0, plain.stderr
    mended = graphmend("run", "--no-cache", "train.py", cwd=tmp_path)
    assert mended.returncode == 0, mended.stderr
    assert mended.stdout == plain.stdout == "h mean 0.0\nstep 0\nh mean 1.0\nstep 1\n"
    late = graphmend("run", "--no-cache", "--no-boundary", "train.py", cwd=tmp_path)
    assert late.stdout == "step 0\nstep 1\nh mean 0.0\nh mean 1.0\n"
    assert "2 deferred print/log/warning call(s) replayed at exit" in late.stderr


def test_run_report_as_json(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    (tmp_path / "train.py").write_text(ORDER_SCRIPT)
    proc = graphmend(
        "run",
        "--no-cache",
        "--report",
        "--output-format",
        "json",
        "--report-file",
        "r.json",
        "train.py",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    jsonschema.validate(
        report, json.loads((REPO_ROOT / "python/graphmend/schema/report-v1.json").read_text())
    )
    assert [(f["path"], f["code"], f["start"]["line"]) for f in report["findings"]] == [
        ("train.py", "GM102", 6),
        ("train.py", "GM106", 6),
    ]


def test_run_a_script_with_a_syntax_error(tmp_path):
    (tmp_path / "bad.py").write_text("import torch\nx = (1,\n")
    proc = graphmend("run", "bad.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert "graphmend" not in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines()[-1] == "SyntaxError: '(' was never closed"
    assert 'File "bad.py", line 2' in proc.stderr


def test_list_packages_says_none(tmp_path):
    (tmp_path / "s.py").write_text("import os\n")
    proc = graphmend("run", "--list-packages", "s.py", cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "(none)\n")


def test_warm_an_unknown_package_exits_2(tmp_path):
    proc = graphmend("warm", "nosuchpkg_xyz", "--cache-dir", tmp_path / "c", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == "graphmend warm: no importable package named 'nosuchpkg_xyz'\n"


def test_warm_counts_files_in_place_on_a_terminal_only(tmp_path, monkeypatch):
    import io

    from graphmend import hook
    from graphmend.cli.run import _ProgressCounter

    package = tmp_path / "warm_progress_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for i in range(40):
        (package / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    calls = []
    stats = hook.prepare(
        ["warm_progress_pkg"],
        cache_dir=str(tmp_path / "c"),
        jobs=1,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(32, 41), (41, 41)]  # one call per unit of 32 files
    assert (stats.mended, stats.cache_hits, stats.failed) == (41, 0, 0)

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal, pipe = Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        counter = _ProgressCounter(stream)
        for done, total in calls:
            counter(done, total)
        counter.finish()
    assert terminal.getvalue() == "\r32/41 files\r41/41 files\n"
    assert pipe.getvalue() == ""


def test_explain_the_example_before_and_after(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    copy_example(tmp_path)
    proc = graphmend(
        "explain", "model.py:example", "--output-format", "json", "--max-breaks", "0", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    jsonschema.validate(
        report, json.loads((REPO_ROOT / "python/graphmend/schema/report-v1.json").read_text())
    )
    before = report["before"]["breaks"]
    assert [b["gb_id"] for b in before] == ["GB0170", "GB0170", "GB0059"]
    assert [b["code"] for b in before] == ["GM105", "GM101", "GM102"]
    assert before[0]["gb_url"].endswith("/gb/gb0170.html")
    # Dynamo's own way out of the print break, named beside GraphMend's fix
    assert before[2]["dynamo_option"].startswith(
        "Dynamo can also handle it: torch._dynamo.config.reorderable_logging_functions.add(print)"
    )
    assert before[0]["dynamo_option"] is None
    assert report["after"]["breaks"] == []  # one graph
    assert "graphmend explain: running Dynamo on the original" in proc.stderr  # phases on stderr
    quiet = graphmend("explain", "model.py:example", "-q", cwd=tmp_path)
    assert quiet.returncode == 0, quiet.stderr
    assert re.match(
        r"before: 3 breaks in \d+ graphs    after: 0 breaks in \d+ graphs", quiet.stdout
    )


@pytest.mark.inductor
def test_explain_checks_the_outputs_compiled_with_a_backend(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    copy_example(tmp_path)
    proc = graphmend(
        "explain",
        "model.py:example",
        "--backend",
        "inductor",
        "--output-format",
        "json",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    jsonschema.validate(
        report, json.loads((REPO_ROOT / "python/graphmend/schema/report-v1.json").read_text())
    )
    assert report["backend"] == {"name": "inductor", "same": True, "error": None}
    text = graphmend("explain", "model.py:example", "--backend", "eager", "-q", cwd=tmp_path)
    assert "compiled with eager: the same as the original eagerly" in text.stdout
    bad = graphmend(
        "explain", "model.py:example", "--backend", "no_such_backend", "-q", cwd=tmp_path
    )
    assert bad.returncode == 1
    assert (
        "compiled with no_such_backend: NOT the same as the original eagerly (raised " in bad.stdout
    )


DECLINED_PRINT = """
import torch


class Box:
    def __str__(self):
        return "box"


def forward(x):
    print("first", x.sum())
    print(Box())  # formats through its own code: printed at once, after the records before it
    return x * 2


def example():
    return forward, (torch.ones(2),)
"""


def test_explain_names_graphmends_own_fallback_and_exits_by_max_breaks(tmp_path):
    (tmp_path / "declined.py").write_text(DECLINED_PRINT)
    proc = graphmend(
        "explain",
        "declined.py:example",
        "--output-format",
        "json",
        "--max-breaks",
        "0",
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr
    [left] = json.loads(proc.stdout)["after"]["breaks"]
    assert "runs at once, after the records before it" in left["runtime_note"]
    allowed = graphmend("explain", "declined.py:example", "--max-breaks", "1", "-q", cwd=tmp_path)
    assert allowed.returncode == 0, allowed.stderr


def test_explain_bad_targets(tmp_path):
    (tmp_path / "m.py").write_text("def entry():\n    return 1\n")
    for target, message in [
        ("m.py", "the target must be FILE.py:ENTRY or module:ENTRY"),
        ("nope.py:entry", "no such file (nope.py)"),
        ("m.py:missing", "'missing' is not a callable of the module (m.py)"),
        ("m.py:entry", "entry() must return (obj, args) or (obj, args, kwargs) (m.py)"),
    ]:
        proc = graphmend("explain", target, "-q", cwd=tmp_path)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert (
            proc.stderr == f"graphmend explain: {message}\n"
            if "(" in message
            else message in proc.stderr
        )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_pre_commit_runs_the_check_hook(tmp_path):
    """The hooks' entries, through pre-commit itself, in a project that has graphmend
    installed (``repo: local``, ``language: system``, as docs/CLI.md shows for projects
    without wheels); the hooks file of this repository names the same entries."""
    pytest.importorskip("pre_commit")
    import yaml

    hooks = {
        hook["id"]: hook
        for hook in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    }
    assert hooks["graphmend-check"]["entry"] == "graphmend check --force-exclude"
    assert hooks["graphmend-fix"]["entry"] == "graphmend fix --force-exclude"
    project = tmp_path / "project"
    project.mkdir()
    copy_example(project)
    entry = f"{sys.executable} -m graphmend check --force-exclude"
    (project / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: graphmend-check\n    name: graphmend check\n"
        f"    entry: {entry}\n    language: system\n    types: [python]\n"
    )
    env = {
        "PRE_COMMIT_HOME": str(tmp_path / "pc-home"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    import os

    environ = {**os.environ, **env}
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=project,
        capture_output=True,
        text=True,
        env=environ,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "model.py:41:12: GM105" in proc.stdout and "Failed" in proc.stdout
    assert EXAMPLE.read_bytes() == (project / "model.py").read_bytes()
