"""`make demo` runs `python -m graphmend.demo examples/model.py`: it must succeed and show the
example model's breaks fall after mending, with identical outputs and printed text."""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_demo_on_the_example_model():
    run = subprocess.run(
        [sys.executable, "-m", "graphmend.demo", "examples/model.py", "--repeats", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    out = run.stdout
    assert "identical to CPython's ast.dump: True" in out
    assert "eager outputs identical: True; printed text identical: True" in out
    counts = re.findall(r"explain, (?:original|mended): +(\d+) break\(s\) in (\d+) graph", out)
    assert len(counts) == 2, out
    (breaks_before, _), (breaks_after, graphs_after) = [tuple(map(int, c)) for c in counts]
    assert breaks_before == 3 and (breaks_after, graphs_after) == (0, 1), out  # one graph


def test_demo_on_a_transformers_model():
    """The second half of `make demo` (quick form: eager backend, few repeats): BART's
    float16 overflow guard breaks the original and is gone after mending."""
    run = subprocess.run(
        [
            sys.executable,
            "bench/models/demo.py",
            "--backend",
            "eager",
            "--repeats",
            "3",
            "--work-dir",
            "build/demo-test",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    out = run.stdout
    before, after = map(int, re.search(r"graph breaks \(explain\) +(\d+) +(\d+)", out).groups())
    assert before > 0 and after == 0, out
    assert "outputs equal: True (eager outputs identical: True" in out, out
    assert "modeling_bart.py:304" in out and "GM101 fixed (where)" in out, out
    assert "breaks left after mending: none" in out, out
