"""Helpers of the command-line tests: running ``graphmend`` in a fresh interpreter (as a user
does) or in process (fast), and the example model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "model.py"


def graphmend(*args, cwd, env=None, stdin=None, extra_flags=()):
    """``python -m graphmend ARGS`` in ``cwd``: the same entry the console script calls."""
    environ = dict(os.environ)
    environ.pop("FORCE_COLOR", None)
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, *extra_flags, "-m", "graphmend", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environ,
        input=stdin,
        timeout=300,
    )


def main_in_process(args, capsys):
    """(exit status, stdout, stderr) of ``graphmend.cli.main(args)``."""
    from graphmend import cli

    status = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def copy_example(folder: Path, name: str = "model.py") -> Path:
    target = folder / name
    target.write_bytes(EXAMPLE.read_bytes())
    return target
