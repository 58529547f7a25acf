"""``graphmend check``: positions, formats (text, json against the shipped schema, sarif,
github), exit codes, bad input, and that it never imports torch."""

from __future__ import annotations

import ast
import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_helpers import EXAMPLE, copy_example, graphmend, main_in_process
from conftest import REPO_ROOT

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = json.loads((REPO_ROOT / "python" / "graphmend" / "schema" / "report-v1.json").read_text())
EXPECTED_EXAMPLE = [
    "model.py:41:12: GM105 validation guard on tensor value `not torch.all(torch.isfinite(x))` [fixable: trap]",
    "model.py:49:12: GM101 branch on tensor value `x.abs().max() > 1e4` [fixable: where]",
    'model.py:55:9: GM102 print call `print("block output mean:", x.mean())` [fixable: defer]',
    'model.py:56:9: GM103 logging call `logger.info("seq_len=%d", x.shape[1])` [fixable: defer]',
    "Found 4 break sites in 1 file: 4 fixable (run `graphmend fix`).",
]


def test_version_and_help():
    version = graphmend("--version", cwd=REPO_ROOT)
    assert version.returncode == 0
    assert re.fullmatch(
        r"graphmend \d+\.\d+\.\d+ \(core [0-9a-f]{12}, CPython 3\.\d+\.\d+, torch \S+\)\n",
        version.stdout,
    )
    helped = graphmend("--help", cwd=REPO_ROOT)
    assert helped.returncode == 0
    for command in ("check", "fix", "explain", "run", "warm", "rule"):
        assert re.search(rf"^  graphmend {command} \S", helped.stdout, re.M), command
    bare = graphmend(cwd=REPO_ROOT)
    assert bare.returncode == 2 and "name a command" in bare.stderr


def test_the_console_script_is_declared_and_resolves():
    import tomllib

    declared = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert declared == {"graphmend": "graphmend.cli:main"}
    from importlib import import_module

    module, _, name = declared["graphmend"].partition(":")
    assert callable(getattr(import_module(module), name))


def test_check_the_example_positions_and_exit_code(tmp_path):
    copy_example(tmp_path)
    proc = graphmend("check", "model.py", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == EXPECTED_EXAMPLE


def test_check_never_imports_torch(tmp_path):
    copy_example(tmp_path)
    proc = graphmend("check", "model.py", cwd=tmp_path, extra_flags=("-X", "importtime"))
    assert proc.returncode == 1
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "graphmend.cli.check" in imported  # the probe sees the command's imports
    assert not {name for name in imported if name == "torch" or name.startswith("torch.")}


def test_check_in_process_leaves_torch_out(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import sys\nfrom graphmend import cli\n"
        f"status = cli.main(['check', {str(EXAMPLE)!r}, '-q'])\n"
        "print('torch' in sys.modules, status)\n"
    )
    import subprocess

    out = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, timeout=120)
    assert out.stdout.splitlines()[-1] == "False 1", out.stderr


def _validate(report):
    jsonschema.validate(report, SCHEMA)
    return report


def test_json_report_validates_and_counts(tmp_path, monkeypatch, capsys):
    copy_example(tmp_path)
    monkeypatch.chdir(tmp_path)
    status, out, err = main_in_process(["check", "model.py", "--output-format", "json"], capsys)
    report = _validate(json.loads(out))
    assert status == 1
    assert report["summary"]["fixable"] == 4 and report["files"] == {
        "checked": 1,
        "changed": 0,
        "errors": 0,
    }
    assert [(f["code"], f["start"]["line"], f["start"]["column"]) for f in report["findings"]] == [
        ("GM105", 41, 12),
        ("GM101", 49, 12),
        ("GM102", 55, 9),
        ("GM103", 56, 9),
    ]
    first = report["findings"][0]
    assert first["fix"]["requires_runtime"] == "graphmend.runtime" and first["fix"]["edits"]
    assert first["url"] == "docs/DIAGNOSTICS.md#gm105-validation-guard"
    assert "Found 4 break sites" in err  # the summary of a machine format goes to stderr


def test_declined_sites_carry_reason_ids_and_hints(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.py").write_text(
        "import random\nimport torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n"
        "        h = self.lin(x)\n        if h.sum() > 0:\n            y = h * random.random()\n"
        "        else:\n            y = h - 1\n        if y.mean() > 0:\n            self.steps += 1\n"
        "        return y\n"
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(["check", "m.py", "--output-format", "json"], capsys)
    findings = _validate(json.loads(out))["findings"]
    assert status == 0  # declined sites do not fail the default policy
    assert [(f["status"], f["reason"]["id"]) for f in findings] == [
        ("declined", "not-pure"),
        ("declined", "mutates-state"),
    ]
    assert "compute it before the if" in findings[0]["hint"]
    status, out, _ = main_in_process(["check", "m.py", "--fail-on", "any"], capsys)
    assert status == 1 and "  why: a branch mutates state" in out


LINE_PREFIXES = st.text(alphabet="éあ𝔘xz_ ", min_size=0, max_size=6).map(
    lambda s: s.replace(" ", "_")
)


@settings(max_examples=25, deadline=None)
@given(prefix=LINE_PREFIXES)
def test_columns_are_ast_positions_plus_one_on_non_ascii_lines(prefix):
    """The column of a site is the character offset of ``ast``'s position, plus one."""
    from graphmend.cli import check as cmd_check, config

    name = ("v" + prefix) if prefix else "v"
    source = (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x: torch.Tensor):\n"
        f"        é = x.sum(); {name} = 1; print(é, {name})\n        return x\n"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.py"
        path.write_text(source, encoding="utf-8")
        outcome = cmd_check.lint_file(str(path), config.Settings(), display="m.py")
    [finding] = [f for f in outcome.findings if f.code == "GM102"]
    call = next(
        n
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "print"
    )
    line = source.splitlines()[call.lineno - 1].encode()

    def characters(byte_offset):  # ast counts UTF-8 bytes; the command, characters
        return len(line[:byte_offset].decode()) + 1

    assert (finding.start["line"], finding.start["column"]) == (
        call.lineno,
        characters(call.col_offset),
    )
    assert (finding.end["line"], finding.end["column"]) == (
        call.end_lineno,
        characters(call.end_col_offset),
    )
    if prefix.isascii():
        assert finding.start["column"] < call.col_offset + 1  # `é` is two bytes, one character


def test_sarif(tmp_path, monkeypatch, capsys):
    copy_example(tmp_path)
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(["check", "model.py", "--output-format", "sarif"], capsys)
    sarif = json.loads(out)
    assert status == 1 and sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} >= {"GM101", "GM105", "GM190"}
    result = run["results"][0]
    assert result["ruleId"] == "GM105" and result["level"] == "warning"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "model.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"]["startLine"] == 41 and location["region"]["startColumn"] == 12
    assert result["fixes"][0]["artifactChanges"][0]["replacements"]


def test_github_annotations_escape(tmp_path, monkeypatch, capsys):
    (tmp_path / "a,b%.py").write_text(
        "import torch\n\n@torch.compile\ndef f(x: torch.Tensor):\n    print('100%,\\n', x)\n    return x\n"
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(["check", "a,b%.py", "--output-format", "github"], capsys)
    assert status == 1
    [line] = out.splitlines()
    assert re.match(
        r"^::(warning|error) file=[^,]*,line=\d+,col=\d+,endLine=\d+,endColumn=\d+,title=[^,]*::",
        line,
    )
    assert line.startswith("::warning file=a%2Cb%25.py,line=5,col=5,")
    assert "title=GM102 print-call::" in line and "100%25," in line


def test_stdin_with_a_filename(tmp_path):
    proc = graphmend(
        "check", "-", "--stdin-filename", "pkg/mod.py", cwd=tmp_path, stdin=EXAMPLE.read_text()
    )
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith("pkg/mod.py:41:12: GM105")


def test_folders_are_walked_sorted_and_excluded(tmp_path, monkeypatch, capsys):
    for relative in (
        "src/b.py",
        "src/a.py",
        "src/.venv/x.py",
        "src/build/y.py",
        "src/legacy/old.py",
    ):
        folder = (tmp_path / relative).parent
        folder.mkdir(parents=True, exist_ok=True)
        copy_example(folder, Path(relative).name)
    (tmp_path / "pyproject.toml").write_text('[tool.graphmend]\nexclude = ["src/legacy/**"]\n')
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(["check", "src", "--statistics", "--jobs", "2"], capsys)
    assert status == 1
    status, out, _ = main_in_process(["check", "src", "--output-format", "json"], capsys)
    assert sorted({f["path"] for f in json.loads(out)["findings"]}) == ["src/a.py", "src/b.py"]
    # A file named explicitly is checked even when excluded, unless --force-exclude.
    status, out, _ = main_in_process(["check", "src/legacy/old.py", "-q"], capsys)
    assert status == 1 and out.count("src/legacy/old.py:") == 4
    status, out, _ = main_in_process(["check", "src/legacy/old.py", "--force-exclude"], capsys)
    assert status == 0 and "No break sites found in 0 files." in out


def test_output_is_the_same_with_any_number_of_jobs(tmp_path, monkeypatch, capsys):
    for i in range(6):
        copy_example(tmp_path, f"m{i}.py")
    monkeypatch.chdir(tmp_path)
    outputs = {
        jobs: main_in_process(["check", ".", "--jobs", jobs], capsys)[1] for jobs in ("1", "3")
    }
    assert outputs["1"] == outputs["3"] and outputs["1"].count("GM10") == 24


# ---------------------------------------------------------------------------------------------
# Bad input: one line naming the path and exit 2, or the finding and exit 1.


def _one_line_error(proc, *fragments):
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    [line] = proc.stderr.splitlines()
    for fragment in fragments:
        assert fragment in line


def test_missing_path_and_folder_without_python(tmp_path):
    _one_line_error(
        graphmend("check", "nope.py", cwd=tmp_path),
        "graphmend check: no such file or directory (nope.py)",
    )
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("hi")
    _one_line_error(graphmend("check", "empty", cwd=tmp_path), "no Python files found (empty)")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.py"
    path.write_text("x = 1\n")
    path.chmod(0)
    try:
        _one_line_error(graphmend("check", "secret.py", cwd=tmp_path), "cannot read", "(secret.py)")
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)


def test_symlink_loop_named_and_walked(tmp_path):
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    _one_line_error(graphmend("check", "loop.py", cwd=tmp_path), "cannot read", "(loop.py)")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "self").symlink_to(tmp_path / "pkg")
    (tmp_path / "pkg" / "ok.py").write_text("x = 1\n")
    walked = graphmend("check", "pkg", cwd=tmp_path)
    assert walked.returncode == 0 and "No break sites found in 1 file." in walked.stdout


@pytest.mark.parametrize(
    "name, data, code",
    [
        ("binary.py", b"\x00\x01\x02import torch\n", "GM004"),
        ("syntax.py", b"def f(x):\n    return x +\n", "GM001"),
        ("badutf8.py", b"x = '\xff'\n", "GM004"),
    ],
)
def test_files_that_do_not_parse_are_findings(tmp_path, name, data, code):
    (tmp_path / name).write_bytes(data)
    proc = graphmend("check", name, cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert re.match(
        rf"{re.escape(name)}:\d+:\d+: {code} .* \[error\]$", proc.stdout.splitlines()[0]
    )
    assert (tmp_path / name).read_bytes() == data


@pytest.mark.parametrize(
    "name, data",
    [
        ("empty.py", b""),
        ("latin1.py", "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n".encode("latin-1")),
        ("bom.py", b"\xef\xbb\xbfx = 1\n"),
        ("crlf.py", b"import os\r\nx = 1\r\n"),
    ],
)
def test_files_without_sites(tmp_path, name, data):
    (tmp_path / name).write_bytes(data)
    proc = graphmend("check", name, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "No break sites found in 1 file.\n"), proc.stderr
    assert (tmp_path / name).read_bytes() == data


def test_unknown_code_and_bad_option(tmp_path):
    copy_example(tmp_path)
    _one_line_error(
        graphmend("check", "model.py", "--select", "GM999", cwd=tmp_path),
        "'GM999' names no GraphMend code",
    )
    _one_line_error(
        graphmend("check", "model.py", "--select", "prnt-call", cwd=tmp_path),
        "did you mean 'print-call'",
    )
    assert graphmend("check", "--output-format", "xml", cwd=tmp_path).returncode == 2


def test_select_by_prefix_and_name(tmp_path, monkeypatch, capsys):
    copy_example(tmp_path)
    monkeypatch.chdir(tmp_path)
    _, out, _ = main_in_process(
        ["check", "model.py", "--select", "GM10", "--ignore", "print-call,GM103", "-q"], capsys
    )
    assert [line.split()[1] for line in out.splitlines()] == ["GM105", "GM101"]
    status, out, _ = main_in_process(["check", "model.py", "--exit-zero", "-q"], capsys)
    assert status == 0 and len(out.splitlines()) == 4


def test_colour_only_when_asked_and_never_with_no_color(tmp_path):
    copy_example(tmp_path)
    assert "\x1b[" not in graphmend("check", "model.py", cwd=tmp_path).stdout  # a pipe
    coloured = graphmend("check", "model.py", "--color", "always", cwd=tmp_path).stdout
    assert "\x1b[33mGM105\x1b[0m" in coloured
    forced = graphmend(
        "check", "model.py", cwd=tmp_path, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}
    ).stdout
    assert "\x1b[" not in forced
