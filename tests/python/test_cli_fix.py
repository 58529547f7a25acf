"""``graphmend fix``: --diff applies with git apply, in-place writes are idempotent, atomic,
and keep encoding, BOM, line endings and mode bits; a file that does not parse, or a fix
that would not parse, is never written."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess

import pytest

from cli_helpers import EXAMPLE, copy_example, graphmend, main_in_process

GUARD = "import torch\n\n\n@torch.compile\ndef f(x: torch.Tensor):\n    {pre}if (x < 0).any():\n        raise ValueError('negative')\n    print({text!r}, x)\n    return x\n"


def _git(folder, *args):
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=False)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_applies_then_fix_is_idempotent(tmp_path):
    copy_example(tmp_path)
    diff = graphmend("fix", "--diff", "model.py", cwd=tmp_path)
    assert diff.returncode == 1, diff.stderr
    assert diff.stdout.startswith("--- a/model.py\n+++ b/model.py\n")
    assert (tmp_path / "model.py").read_bytes() == EXAMPLE.read_bytes()  # --diff writes nothing
    (tmp_path / "d.patch").write_text(diff.stdout)
    _git(tmp_path, "init", "-q")
    assert _git(tmp_path, "apply", "--check", "-p1", "d.patch").returncode == 0

    fixed = graphmend("fix", "model.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert "Fixed 4 sites in 1 file" in fixed.stdout
    assert "note: fixed files import graphmend.runtime" in fixed.stderr
    patched = tmp_path / "patched"
    patched.mkdir()
    copy_example(patched)
    _git(patched, "init", "-q")
    assert _git(patched, "apply", "-p1", str(tmp_path / "d.patch")).returncode == 0
    assert (patched / "model.py").read_bytes() == (tmp_path / "model.py").read_bytes()

    mtime = os.stat(tmp_path / "model.py").st_mtime_ns
    again = graphmend("fix", "model.py", cwd=tmp_path)
    assert again.returncode == 0 and "Fixed 0 sites in 0 files" in again.stdout
    assert os.stat(tmp_path / "model.py").st_mtime_ns == mtime  # an unchanged file is not touched
    check = graphmend("check", "model.py", cwd=tmp_path, extra_flags=())
    assert check.returncode == 0 and "fixable" not in check.stdout
    assert graphmend("fix", "--check", "model.py", cwd=tmp_path).returncode == 0


def test_diff_says_what_it_fixes_and_exits_by_the_documented_rule(tmp_path):
    copy_example(tmp_path)
    diff = graphmend("fix", "--diff", "model.py", cwd=tmp_path)
    # A diff that is not empty: exit 1 (docs/CLI.md, "Exit codes"), its summary on stderr.
    assert diff.returncode == 1 and diff.stdout.startswith("--- a/model.py\n")
    assert diff.stderr.splitlines()[0] == (
        "The diff fixes 4 sites in 1 file; 0 declined, 0 out of scope remain."
    )
    assert "No break sites found" not in diff.stderr

    graphmend("fix", "model.py", cwd=tmp_path)
    empty = graphmend("fix", "--diff", "model.py", cwd=tmp_path)
    assert (empty.returncode, empty.stdout) == (0, "")
    assert empty.stderr == "The diff fixes 0 sites in 0 files; 0 declined, 0 out of scope remain.\n"
    quiet = graphmend("fix", "--diff", "-q", str(EXAMPLE), cwd=tmp_path)
    assert quiet.returncode == 1 and quiet.stderr == ""


def test_fixed_code_shows_its_fallbacks_only_when_asked(tmp_path):
    copy_example(tmp_path)
    graphmend("fix", "model.py", cwd=tmp_path)
    check = graphmend("check", "model.py", cwd=tmp_path)
    assert (check.returncode, check.stdout) == (0, "No break sites found in 1 file.\n")
    shown = graphmend("check", "--show-suppressed", "model.py", cwd=tmp_path)
    assert "GM101 branch on tensor value `x.abs().max() > 1e4` [suppressed]" in shown.stdout
    assert "why: fallback branch of an already predicated if (GraphMend's own code" in shown.stdout


def test_check_and_stdout_modes_write_nothing(tmp_path, monkeypatch, capsys):
    copy_example(tmp_path)
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(["fix", "--check", "model.py"], capsys)
    assert (status, out) == (1, "would fix 4 sites in 1 file\n")
    status, out, _ = main_in_process(["fix", "--stdout", "model.py"], capsys)
    assert status == 0 and "import graphmend.runtime as __graphmend_rt__" in out
    assert (tmp_path / "model.py").read_bytes() == EXAMPLE.read_bytes()
    stdin = graphmend(
        "fix", "-", "--stdin-filename", "model.py", cwd=tmp_path, stdin=EXAMPLE.read_text()
    )
    assert stdin.returncode == 0 and stdin.stdout == out


def _edited_lines(before: bytes, after: bytes, newline: bytes):
    old, new = before.split(newline), after.split(newline)
    return [i for i, (a, b) in enumerate(zip(old, new)) if a != b]


@pytest.mark.parametrize(
    "name, encoding, prefix, newline",
    [
        ("latin1.py", "latin-1", "# -*- coding: latin-1 -*-\n", "\n"),
        ("bom.py", "utf-8", "\ufeff", "\n"),
        ("crlf.py", "utf-8", "", "\r\n"),
    ],
)
def test_encoding_bom_and_line_endings_round_trip(tmp_path, name, encoding, prefix, newline):
    text = prefix + GUARD.format(pre="", text="café")
    data = text.replace("\n", newline).encode(encoding)
    path = tmp_path / name
    path.write_bytes(data)
    proc = graphmend("fix", name, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    after = path.read_bytes()
    assert after != data
    assert after.decode(encoding).count("café") == 1  # the literal is still in the file's encoding
    assert after.startswith(b"\xef\xbb\xbf") == (prefix == "\ufeff")
    assert after.count(b"\r\n") == (after.count(b"\n") if newline == "\r\n" else 0)
    # Only the lines of the guard, the print and the runtime import changed.
    assert len(_edited_lines(data, after, newline.encode())) <= 4
    assert sorted(os.listdir(tmp_path)) == [name]  # no temporary file left behind


def test_mode_bits_of_a_read_only_file_are_kept(tmp_path):
    path = tmp_path / "ro.py"
    path.write_text(GUARD.format(pre="", text="x"))
    path.chmod(stat.S_IRUSR | stat.S_IRGRP)
    proc = graphmend("fix", "ro.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IRUSR | stat.S_IRGRP
    assert "__graphmend_rt__.guard" in path.read_text()
    assert os.listdir(tmp_path) == ["ro.py"]


def test_a_file_with_a_syntax_error_is_not_written(tmp_path):
    data = b"import torch\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x +\n"
    (tmp_path / "bad.py").write_bytes(data)
    copy_example(tmp_path)
    proc = graphmend("fix", "bad.py", "model.py", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "bad.py:6:" in proc.stdout and "GM001" in proc.stdout
    assert (tmp_path / "bad.py").read_bytes() == data
    assert "__graphmend_rt__" in (tmp_path / "model.py").read_text()  # the good file is fixed


def test_a_fix_that_does_not_parse_is_not_written(tmp_path, monkeypatch, capsys):
    from graphmend import _mend_source

    copy_example(tmp_path)
    real = _mend_source.mend_source

    def broken(*args, **kwargs):
        result = real(*args, **kwargs)
        if not result.changed:
            return result
        import dataclasses

        return dataclasses.replace(result, source=result.source + "\ndef oops(:\n")

    monkeypatch.setattr(_mend_source, "mend_source", broken)
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(["fix", "model.py"], capsys)
    assert status == 2
    assert "GM901 the fix was not written: the mended text does not parse" in out
    assert (tmp_path / "model.py").read_bytes() == EXAMPLE.read_bytes()


def test_a_character_the_encoding_cannot_hold_is_not_written(tmp_path, monkeypatch, capsys):
    from graphmend import _mend_source

    (tmp_path / "m.py").write_bytes(
        ("# -*- coding: ascii -*-\n" + GUARD.format(pre="", text="x")).encode("ascii")
    )
    real = _mend_source.mend_source

    def with_non_ascii(*args, **kwargs):
        import dataclasses

        result = real(*args, **kwargs)
        return (
            dataclasses.replace(result, source=result.source.replace("'x'", "'é'"))
            if result.changed
            else result
        )

    monkeypatch.setattr(_mend_source, "mend_source", with_non_ascii)
    monkeypatch.chdir(tmp_path)
    before = (tmp_path / "m.py").read_bytes()
    status, out, _ = main_in_process(["fix", "m.py"], capsys)
    assert status == 2 and "cannot be written in the file's encoding ascii" in out
    assert (tmp_path / "m.py").read_bytes() == before


def test_exit_policy_of_fix(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.py").write_text(
        GUARD.format(pre="if x.sum() > 0:\n        x.add_(1)\n    ", text="x")
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = main_in_process(["fix", "--diff", "m.py"], capsys)
    assert status == 1  # a non-empty diff
    status, _, _ = main_in_process(["fix", "m.py", "--exit-non-zero-on-fix"], capsys)
    assert status == 1
    status, out, _ = main_in_process(["fix", "m.py"], capsys)
    assert status == 0 and "GM101" in out and "[declined]" in out  # declined sites remain
    status, _, _ = main_in_process(["fix", "m.py", "--fail-on", "any"], capsys)
    assert status == 1


def test_fix_accepts_ruffs_import_sorting(tmp_path):
    """Ruff moves the inserted runtime import (I001, E702); fixing again changes nothing."""
    import importlib.util
    import sys

    if importlib.util.find_spec("ruff") is None:
        pytest.skip("needs ruff (requirements-dev.txt)")
    copy_example(tmp_path)
    assert graphmend("fix", "model.py", cwd=tmp_path).returncode == 0
    ruff = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--select",
            "I,E702",
            "--fix",
            "model.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    tidied = (tmp_path / "model.py").read_text()
    assert "import graphmend.runtime as __graphmend_rt__\n" in tidied  # on its own line now
    again = graphmend("fix", "--check", "model.py", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "would fix 0 sites in 0 files\n")
