"""`make demo` runs `python -m graphmend.demo examples/model.py`: it must succeed and show the
example model's breaks fall after mending, with identical outputs and printed text."""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_demo_on_the_example_model():
    run = subprocess.run([sys.executable, "-m", "graphmend.demo", "examples/model.py", "--repeats", "1"],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    out = run.stdout
    assert "identical to CPython's ast.dump: True" in out
    assert "eager outputs identical: True; printed text identical: True" in out
    breaks = [int(n) for n in re.findall(r"explain, (?:original|mended): +\d+ graph\(s\), (\d+) break", out)]
    assert len(breaks) == 2 and breaks[1] < breaks[0], out
