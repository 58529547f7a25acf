"""``[tool.graphmend]`` and suppression comments: the configuration is honoured, refused when
misspelt, ignored with --isolated; a pragma hides a site from check and leaves it byte for
byte in fix, mend_source, the import hook and graphmend.mend."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

import graphmend
from cli_helpers import copy_example, graphmend as run_graphmend, main_in_process

IF_LINE = "        if x.abs().max() > 1e4:"


def _with_pragma(tmp_path, comment: str, line: str = IF_LINE):
    path = copy_example(tmp_path)
    text = path.read_text()
    assert line in text
    path.write_text(text.replace(line, line + comment, 1))
    return path


def test_ignore_in_pyproject_and_isolated(tmp_path, monkeypatch, capsys):
    copy_example(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.graphmend]\nignore = ["GM102"]\n'
    )
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")  # found by walking up
    status, out, _ = main_in_process(["check", "../model.py", "-q"], capsys)
    assert [line.split()[1] for line in out.splitlines()] == ["GM105", "GM101", "GM103"]
    _, out, _ = main_in_process(["check", "../model.py", "-q", "--isolated"], capsys)
    assert "GM102" in out
    _, out, _ = main_in_process(["check", "--show-settings"], capsys)
    assert "ignore = ('GM102',)  # " in out and "pyproject.toml" in out
    # The configured ignore also keeps fix from rewriting those sites.
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(["fix", "model.py", "-q"], capsys)
    text = (tmp_path / "model.py").read_text()
    assert 'print("block output mean:", x.mean())' in text and "__graphmend_rt__.defer" in text


def test_per_file_ignores_and_explicit_config(tmp_path, monkeypatch, capsys):
    (tmp_path / "scripts").mkdir()
    copy_example(tmp_path / "scripts", "run.py")
    copy_example(tmp_path, "model.py")
    (tmp_path / "cfg.toml").write_text('[per-file-ignores]\n"scripts/*.py" = ["GM102", "GM103"]\n')
    (tmp_path / "cfg.toml").rename(tmp_path / "graphmend.toml")
    monkeypatch.chdir(tmp_path)
    _, out, _ = main_in_process(["check", ".", "--output-format", "json"], capsys)
    codes = {(f["path"], f["code"]) for f in json.loads(out)["findings"]}
    assert ("scripts/run.py", "GM102") not in codes and ("model.py", "GM102") in codes
    other = tmp_path / "other.toml"
    other.write_text('select = ["GM105"]\n')
    _, out, _ = main_in_process(["check", "model.py", "--config", other, "-q"], capsys)
    assert [line.split()[1] for line in out.splitlines()] == ["GM105"]


@pytest.mark.parametrize(
    "table, message",
    [
        ('ignroe = ["GM102"]', "unknown key 'ignroe' in [tool.graphmend]; did you mean 'ignore'?"),
        ('select = ["GM999"]', "select: 'GM999' names no GraphMend code"),
        ('fail-on = "sometimes"', "fail-on must be one of fixable, any, never"),
        (
            '[tool.graphmend.hook]\npackage = ["x"]',
            "unknown key 'package' in [tool.graphmend.hook]; did you mean 'packages'?",
        ),
        ("select = [", "invalid TOML"),
        ('entry-points = ["engine.py"]', "entry-points: 'engine.py' is not FILE.py:QUALIFIED.NAME"),
    ],
)
def test_a_bad_configuration_exits_2_with_one_line(tmp_path, table, message):
    copy_example(tmp_path)
    header = "" if table.startswith("[tool.graphmend.") else "[tool.graphmend]\n"
    (tmp_path / "pyproject.toml").write_text(header + table + "\n")
    proc = run_graphmend("check", "model.py", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    [line] = proc.stderr.splitlines()
    assert line.startswith("graphmend check: ") and message in line and "pyproject.toml" in line
    assert run_graphmend("check", "model.py", "--isolated", cwd=tmp_path).returncode == 1


ENGINE = textwrap.dedent(
    """\
    import torch


    class Engine:
        def step(self, x: torch.Tensor):
            if x.sum() > 0:
                x = x * 2
            return self.scale(x)

        def scale(self, x: torch.Tensor):
            print("scaled")
            return x / 2


    def unrelated(x: torch.Tensor):
        if x.sum() > 0:
            x = x - 1
        return x
    """
)


def test_entry_points_name_what_the_text_cannot_show(tmp_path, monkeypatch, capsys):
    """A training engine's step, compiled by a caller in another file: nothing in this file
    shows it is traced until the configuration names it; what it calls is traced too."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "engine.py").write_text(ENGINE)
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(["check", "src/engine.py", "-q"], capsys)
    assert (status, out) == (0, "")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.graphmend]\nentry-points = ["./src/engine.py:Engine.step"]\n'
    )
    status, out, _ = main_in_process(["check", "src/engine.py", "-q"], capsys)
    assert status == 1
    assert [(line.split(":")[1], line.split()[1]) for line in out.splitlines()] == [
        ("6", "GM101"),
        ("11", "GM102"),
    ]
    _, shown, _ = main_in_process(["check", "--show-settings"], capsys)
    assert "entry-points = ('src/engine.py:Engine.step',)" in shown


# ---------------------------------------------------------------------------------------------
# Pragmas.


@pytest.mark.parametrize(
    "comment", ["  # graphmend: ignore[GM101]", "  # noqa: E501, GM101", "  # graphmend: ignore"]
)
def test_a_pragma_hides_the_site_and_fix_leaves_it(tmp_path, monkeypatch, capsys, comment):
    path = _with_pragma(tmp_path, comment)
    monkeypatch.chdir(tmp_path)
    _, out, _ = main_in_process(["check", "model.py", "-q"], capsys)
    assert "GM101" not in out and out.count("[fixable") == 3
    _, out, _ = main_in_process(["check", "model.py", "-q", "--show-suppressed"], capsys)
    assert (
        "model.py:49:12: GM101 branch on tensor value `x.abs().max() > 1e4` [suppressed by line 49]"
        in out
    )
    before = path.read_text().splitlines(keepends=True)
    main_in_process(["fix", "model.py"], capsys)
    after = path.read_text().splitlines(keepends=True)
    start = before.index(IF_LINE + comment + "\n")
    block = before[start : start + 4]  # the if, its two branches, the else
    assert "".join(block) in "".join(after)


def test_file_level_pragma_and_other_codes(tmp_path, monkeypatch, capsys):
    path = copy_example(tmp_path)
    path.write_text("# graphmend: ignore-file[GM102, GM103]\n" + path.read_text())
    monkeypatch.chdir(tmp_path)
    _, out, _ = main_in_process(["check", "model.py", "-q"], capsys)
    assert [line.split()[1] for line in out.splitlines()] == ["GM105", "GM101"]


def test_unused_pragma_is_gm190_when_selected(tmp_path, monkeypatch, capsys):
    _with_pragma(tmp_path, "  # graphmend: ignore[GM102]")  # the if is GM101: unused
    monkeypatch.chdir(tmp_path)
    _, out, _ = main_in_process(["check", "model.py", "-q"], capsys)
    assert "GM190" not in out  # off by default
    status, out, _ = main_in_process(["check", "model.py", "-q", "--select", "GM190"], capsys)
    assert status == 1
    assert out.splitlines() == [
        "model.py:49:1: GM190 unused pragma: this ignore comment (GM102) suppresses no site [note]",
        "  hint: remove the comment",
    ]


def test_fix_takes_out_unused_pragmas_when_gm190_is_selected(tmp_path, monkeypatch, capsys):
    """As Ruff's RUF100: the unused comments go (a noqa keeps its other linters' codes), the
    used one stays, the suppressed site is left as written and the rest is mended."""
    path = _with_pragma(tmp_path, "  # graphmend: ignore[GM101]")  # used: the if is GM101
    text = path.read_text()
    assert "\nimport torch\n" in text
    text = text.replace("\nimport torch\n", "\nimport torch  # noqa: E402, GM105\n", 1)
    text = "# graphmend: ignore-file[GM108]\n" + text
    path.write_text(text)
    monkeypatch.chdir(tmp_path)
    status, _, _ = main_in_process(["fix", "model.py", "-q"], capsys)  # GM190 not selected
    kept = path.read_text()
    assert "ignore-file[GM108]" in kept and "# noqa: E402, GM105" in kept
    path.write_text(text)
    main_in_process(["fix", "model.py", "-q", "--select", "ALL"], capsys)
    fixed = path.read_text()
    assert "ignore-file" not in fixed and "# noqa: E402\n" in fixed
    assert IF_LINE + "  # graphmend: ignore[GM101]" in fixed  # used: kept, and its site as written
    assert fixed == graphmend.mend_source(fixed, "model.py").source  # nothing left to fix
    status, out, _ = main_in_process(["check", "model.py", "-q", "--select", "ALL"], capsys)
    assert "GM190" not in out


SUPPRESSED_MODULE = textwrap.dedent(
    """\
    import torch


    class Gate(torch.nn.Module):
        def forward(self, x: torch.Tensor):
            if x.sum() > 0:  # graphmend: ignore[GM101]
                y = x * 2
            else:
                y = x - 1
            print("gate", y.shape[0])
            return y
    """
)


def test_mend_source_leaves_a_suppressed_site_byte_for_byte():
    result = graphmend.mend_source(SUPPRESSED_MODULE, "m.py")
    [branch] = [d for d in result.diagnostics if d.code == "GM101"]
    assert (branch.fixed, branch.reason_id, branch.suppressed_by) == (False, "suppressed", 6)
    lines = SUPPRESSED_MODULE.splitlines(keepends=True)
    assert "".join(lines[5:9]) in result.source  # the if statement, as written
    assert result.changed  # the print is still deferred
    assert result.pragmas == (graphmend._mend_source.Pragma(6, False, ("GM101",), True),)


HOOKED = """\
import graphmend
hook = graphmend.install(["gmc_pragma"], cache_dir=None)
import gmc_pragma
print([(d.code, d.fixed, d.reason_id) for d in hook.report().diagnostics])
"""
MENDED = """\
import graphmend, gmc_pragma
_, report = graphmend.mend(gmc_pragma.Gate(), report=True)
print([(d.code, d.fixed, d.reason_id) for d in report.diagnostics])
"""


@pytest.mark.parametrize("probe", [HOOKED, MENDED], ids=["install", "mend"])
def test_install_and_mend_honour_the_pragma(tmp_path, probe):
    import subprocess

    package = tmp_path / "gmc_pragma"
    package.mkdir()
    (package / "__init__.py").write_text(SUPPRESSED_MODULE)
    proc = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "('GM101', False, 'suppressed')" in proc.stdout and "('GM102', True, '')" in proc.stdout
