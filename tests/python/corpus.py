#!/usr/bin/env python3
"""Differential corpus check: GraphMend's parser against CPython's ``ast``.

For every ``.py`` file of the running CPython's standard library (tests included) and of the
installed ``torch`` and ``transformers`` packages:

* the bytes are decoded as CPython decodes a source file (``tokenize.detect_encoding``);
* if ``ast.parse`` accepts the text, ``graphmend.dump_ast(text, include_attributes=True)``
  must equal ``ast.dump(ast.parse(text), include_attributes=True)``;
* if ``ast.parse`` rejects it, ``graphmend`` must raise SyntaxError too.

Files are checked in worker processes; a file that crashes or hangs the parser is re-run
alone in a subprocess and reported as ``crash`` or ``timeout``.

Used by ``test_corpus.py`` and runnable by itself::

    python tests/python/corpus.py [--limit N] [--package stdlib|torch|transformers|DIR]...
                                  [--version 3.12]

With --version 3.12 (from a 3.11 interpreter), GraphMend parses in 3.12 mode and CPython 3.12
(found on pyenv or PATH) is the oracle, run in its own processes; its stdlib is the corpus's.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import io
import json
import multiprocessing
import os
import re
import subprocess
import sys
import sysconfig
import time
import tokenize
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_REPORT = REPO_ROOT / "build" / "corpus_report.txt"
DEFAULT_PACKAGES = ("stdlib", "torch", "transformers", "site-packages")
# "site-packages": every other package of the running interpreter's site-packages (torch's and
# transformers' dependencies such as sympy, networkx, numpy, and the test tools).
SEPARATE_PACKAGES = ("torch", "transformers")

# Outcomes. The first two are agreement; every other one is a failure of the corpus test.
MATCH = "match"  # both accept, dumps identical
BOTH_REJECT = "both_reject"  # both raise SyntaxError
MISMATCH = "mismatch"  # both accept, dumps differ
OURS_REJECT = "ours_reject"  # CPython accepts, GraphMend raises SyntaxError
OURS_ACCEPT = "ours_accept"  # CPython rejects, GraphMend accepts
OURS_ERROR = "ours_error"  # GraphMend raised something other than SyntaxError
CRASH = "crash"  # the process died (signal) while parsing this file
TIMEOUT = "timeout"  # parsing this file took longer than the per-file limit
AGREEING = (MATCH, BOTH_REJECT)
FAILING = (MISMATCH, OURS_REJECT, OURS_ACCEPT, OURS_ERROR, CRASH, TIMEOUT)

STALL_SECONDS = float(os.environ.get("GRAPHMEND_CORPUS_STALL_SECONDS", "120"))
FILE_TIMEOUT_SECONDS = float(os.environ.get("GRAPHMEND_CORPUS_FILE_TIMEOUT", "60"))


@dataclass(frozen=True)
class Result:
    group: str  # stdlib, torch, transformers or a directory
    path: str
    size: int  # bytes
    status: str
    detail: str = ""


# ---------------------------------------------------------------------------------------------
# The corpus.


def package_root(name: str) -> Path | None:
    """The directory of an installed top-level package, without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _python_files(root: Path, skip_dirs: Iterable[str] = ()) -> list[Path]:
    skip = {"__pycache__", *skip_dirs}
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip)
        files.extend(Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))
    return files


def corpus_files(
    packages: Sequence[str] = DEFAULT_PACKAGES, stdlib: Path | None = None
) -> tuple[list[tuple[str, Path]], list[str]]:
    """Returns ([(group, path)], notes) for the named packages, in a stable order. The
    stdlib is the running interpreter's unless `stdlib` names another one's."""
    files: list[tuple[str, Path]] = []
    notes: list[str] = []
    for name in packages:
        if name == "stdlib":
            root = stdlib or Path(sysconfig.get_paths()["stdlib"])
            found = _python_files(root, skip_dirs=("site-packages", "dist-packages"))
        elif name == "site-packages":
            root = Path(sysconfig.get_paths()["purelib"])
            found = _python_files(root, skip_dirs=SEPARATE_PACKAGES)
        elif os.path.isdir(name):
            root = Path(name)
            found = _python_files(root)
        else:
            root = package_root(name)
            if root is None:
                notes.append(f"package {name!r} is not installed: skipped")
                continue
            found = _python_files(root)
        notes.append(f"{name}: {len(found)} files under {root}")
        files.extend((name, path) for path in found)
    return files, notes


def sample(items: Sequence, limit: int | None) -> list:
    """`limit` items spread evenly over `items` (all of them when limit is None)."""
    if limit is None or limit >= len(items):
        return list(items)
    if limit <= 0:
        return []
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


# ---------------------------------------------------------------------------------------------
# Checking one file.


def decode_like_cpython(data: bytes) -> str | None:
    """The text CPython would compile for a source file's bytes; None if it cannot decode."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None


def cpython_dump(source: str | bytes) -> tuple[str | None, BaseException | None]:
    """(ast.dump with attributes, None) when ast.parse accepts, else (None, the exception)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except Exception as err:  # SyntaxError, ValueError, RecursionError, MemoryError...
        return None, err
    return ast.dump(tree, include_attributes=True), None


def _describe_error(err: BaseException) -> str:
    if isinstance(err, SyntaxError):
        return f"{type(err).__name__}: {err.msg} (line {err.lineno}, offset {err.offset})"
    return f"{type(err).__name__}: {err}"


def first_difference(expected: str, got: str, context: int = 70) -> str:
    """Where two dumps first differ, with the source line CPython's dump was at."""
    limit = min(len(expected), len(got))
    index = next((i for i in range(limit) if expected[i] != got[i]), limit)
    linenos = re.findall(r"lineno=(\d+)", expected[:index])
    line = f"near source line {linenos[-1]}" if linenos else "before the first node position"
    lo = max(0, index - context)
    return (
        f"dumps differ at char {index} ({line})\n"
        f"      cpython: ...{expected[lo : index + context]}...\n"
        f"    graphmend: ...{got[lo : index + context]}..."
    )


def cpython_accepts(source: str | bytes) -> tuple[bool, BaseException | None]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except Exception as err:
        return False, err
    return True, None


def check_source(
    group: str,
    path: str,
    data: bytes,
    version: tuple[int, int] | None = None,
    oracle: dict | None = None,
) -> Result:
    """Checks one file. CPython's verdict comes from the running interpreter, or, for another
    version, from `oracle`: that interpreter's record for the file (see ORACLE_SCRIPT)."""
    import graphmend

    text = decode_like_cpython(data)
    # Undecodable files go in as bytes: CPython rejects them, and GraphMend must as well.
    source: str | bytes = data if text is None else text
    # GraphMend first: when it rejects, CPython's verdict is enough and the costly
    # ast.dump is skipped.
    try:
        if text is None:
            graphmend.parse_check(source, path, version=version)
            got = None
        else:
            got = graphmend.dump_ast(source, include_attributes=True, version=version)
    except SyntaxError as err:
        accepted = cpython_accepts(source)[0] if oracle is None else "sha" in oracle
        status = OURS_REJECT if accepted else BOTH_REJECT
        return Result(group, path, len(data), status, _describe_error(err))
    except Exception as err:  # never expected from graphmend
        return Result(group, path, len(data), OURS_ERROR, _describe_error(err))
    if oracle is not None:
        if "sha" not in oracle:
            return Result(
                group, path, len(data), OURS_ACCEPT, "cpython: " + oracle.get("error", "?")
            )
        if got is not None and _sha(got) == oracle["sha"]:
            return Result(group, path, len(data), MATCH)
        expected = oracle_dump(oracle["python"], path)
        return Result(group, path, len(data), MISMATCH, first_difference(expected, got or ""))
    expected, cp_error = cpython_dump(source)
    if expected is None:
        return Result(group, path, len(data), OURS_ACCEPT, "cpython: " + _describe_error(cp_error))
    if got is None or got != expected:
        return Result(group, path, len(data), MISMATCH, first_difference(expected, got or ""))
    return Result(group, path, len(data), MATCH)


def check_file(
    group: str, path: str, version: tuple[int, int] | None = None, oracle: dict | None = None
) -> Result:
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        return Result(group, path, 0, BOTH_REJECT, f"unreadable: {err}")
    return check_source(group, path, data, version, oracle)


# ---------------------------------------------------------------------------------------------
# Another CPython as the oracle (checking the 3.12 grammar from a 3.11 interpreter).

# Runs under the oracle interpreter. Reads paths on stdin; prints one JSON line per file with
# the sha256 of ast.dump(..., include_attributes=True) or the error. With --dump PATH, prints
# that file's dump itself.
ORACLE_SCRIPT = r"""
import ast, hashlib, io, json, sys, tokenize, warnings
sys.setrecursionlimit(20000)

def dump(path):
    data = open(path, "rb").read()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        source = data.decode(encoding)
    except Exception:
        source = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.dump(ast.parse(source), include_attributes=True)

if sys.argv[1:2] == ["--dump"]:
    sys.stdout.write(dump(sys.argv[2]))
    sys.exit(0)
for path in sys.stdin.read().splitlines():
    record = {"path": path}
    try:
        text = dump(path)
        record["sha"] = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    except Exception as err:
        record["error"] = f"{type(err).__name__}: {err}"
    print(json.dumps(record), flush=True)
"""


def _sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def find_python(version: tuple[int, int]) -> str | None:
    """An interpreter of CPython `version`: this one, pyenv's, or pythonX.Y on PATH."""
    if tuple(sys.version_info[:2]) == tuple(version):
        return sys.executable
    import shutil

    name = f"python{version[0]}.{version[1]}"
    pyenv = Path("/root/.pyenv/versions")
    if pyenv.is_dir():
        for candidate in sorted(
            pyenv.glob(f"{version[0]}.{version[1]}.*/bin/{name}"), reverse=True
        ):
            if os.access(candidate, os.X_OK):
                return str(candidate)
    return shutil.which(name)


def oracle_stdlib(python: str) -> Path:
    out = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(out.stdout.strip())


def oracle_records(python: str, paths: Sequence[str], workers: int) -> dict[str, dict]:
    """Runs ORACLE_SCRIPT over `paths` in `workers` parallel processes of `python`."""
    import tempfile

    parts = [paths[i::workers] for i in range(workers)]
    outputs = []
    with tempfile.TemporaryDirectory(prefix="graphmend-oracle-") as tmp:
        procs = []
        for index, part in enumerate(parts):
            inbox, outbox = Path(tmp, f"in{index}"), Path(tmp, f"out{index}")
            inbox.write_text("\n".join(part), encoding="utf-8")
            with inbox.open("rb") as stdin, outbox.open("wb") as stdout:
                procs.append(
                    subprocess.Popen([python, "-c", ORACLE_SCRIPT], stdin=stdin, stdout=stdout)
                )
        for proc in procs:
            proc.wait()
        outputs = [Path(tmp, f"out{i}").read_text(encoding="utf-8") for i in range(len(parts))]
    records = {}
    for output in outputs:
        for line in output.splitlines():
            record = json.loads(line)
            record["python"] = python
            records[record["path"]] = record
    return records


def oracle_dump(python: str, path: str) -> str:
    done = subprocess.run(
        [python, "-c", ORACLE_SCRIPT, "--dump", path], capture_output=True, text=True
    )
    return done.stdout


# ---------------------------------------------------------------------------------------------
# Running many files.


def _init_worker() -> None:
    # ast.dump recurses in Python; deep expressions in the corpus need more than 1000 frames.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    import graphmend  # noqa: F401  (import once per worker)


def _check_chunk(item: tuple[int, list[tuple]]) -> tuple[int, list[Result]]:
    index, chunk = item
    return index, [check_file(*task) for task in chunk]


def check_isolated(
    group: str, path: str, version: tuple[int, int] | None = None, oracle: dict | None = None
) -> Result:
    """Checks one file in a fresh interpreter, so that a crash or hang is attributed to it."""
    task = json.dumps([group, path, version, oracle])
    command = [sys.executable, str(Path(__file__).resolve()), "--one", task]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=FILE_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return Result(
            group, path, _size(path), TIMEOUT, f"no result after {FILE_TIMEOUT_SECONDS:.0f} s"
        )
    if done.returncode != 0:
        tail = (done.stderr or "").strip().splitlines()[-3:]
        how = f"signal {-done.returncode}" if done.returncode < 0 else f"exit {done.returncode}"
        return Result(group, path, _size(path), CRASH, f"{how}: " + " | ".join(tail))
    return Result(**json.loads(done.stdout))


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def run_corpus(
    files: Sequence[tuple[str, Path]],
    workers: int | None = None,
    chunk_size: int = 16,
    progress: bool = False,
    version: tuple[int, int] | None = None,
    oracle_python: str | None = None,
) -> list[Result]:
    """Checks every file with `workers` processes (default: os.cpu_count()). With
    `oracle_python`, CPython's verdicts come from that interpreter, and GraphMend parses in
    `version`'s mode."""
    workers = workers or os.cpu_count() or 1
    records: dict[str, dict] = {}
    if oracle_python is not None:
        records = oracle_records(oracle_python, [str(p) for _, p in files], workers)
    items = [(group, str(path), version, records.get(str(path))) for group, path in files]
    chunks = [items[i : i + chunk_size] for i in range(0, len(items), chunk_size)]
    results: list[Result] = []
    done: set[int] = set()
    start = time.monotonic()
    context = multiprocessing.get_context("fork")
    pool = context.Pool(workers, initializer=_init_worker)
    try:
        pending = pool.imap_unordered(_check_chunk, list(enumerate(chunks)))
        while len(done) < len(chunks):
            try:
                index, chunk_results = pending.next(timeout=STALL_SECONDS)
            except (multiprocessing.TimeoutError, StopIteration):
                break  # a worker died or hangs: its chunk is re-run file by file below
            done.add(index)
            results.extend(chunk_results)
            if progress and len(done) % 50 == 0:
                print(
                    f"  {len(results)}/{len(items)} files, {time.monotonic() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        pool.terminate()
        pool.join()
    for index, chunk in enumerate(chunks):
        if index not in done:
            results.extend(check_isolated(*task) for task in chunk)
    results.sort(key=lambda r: (r.group, r.path))
    return results


# ---------------------------------------------------------------------------------------------
# Report.


def totals_line(results: Sequence[Result]) -> str:
    counts = Counter(r.status for r in results)
    agree = sum(counts[s] for s in AGREEING)
    fail = sum(counts[s] for s in FAILING)
    parts = ", ".join(f"{s} {counts[s]}" for s in (*AGREEING, *FAILING) if counts[s])
    return f"corpus: {len(results)} files, {agree} agree, {fail} disagree ({parts})"


def format_report(
    results: Sequence[Result], notes: Sequence[str] = (), seconds: float | None = None
) -> str:
    lines = [
        "GraphMend corpus report: graphmend.dump_ast vs ast.dump(ast.parse(...)), "
        f"Python {sys.version.split()[0]}",
        "",
    ]
    lines += [f"  {n}" for n in notes]
    if seconds is not None:
        lines.append(f"  checked in {seconds:.1f} s")
    lines += ["", totals_line(results), ""]
    groups = sorted({r.group for r in results})
    header = f"{'group':<14}{'files':>7}{'MB':>8}" + "".join(
        f"{s:>13}" for s in (*AGREEING, *FAILING)
    )
    lines.append(header)
    for group in groups:
        mine = [r for r in results if r.group == group]
        counts = Counter(r.status for r in mine)
        mb = sum(r.size for r in mine) / 1e6
        lines.append(
            f"{group:<14}{len(mine):>7}{mb:>8.1f}"
            + "".join(f"{counts[s]:>13}" for s in (*AGREEING, *FAILING))
        )
    lines.append("")
    lines.append("Directions: ours_reject = CPython accepts and GraphMend raises SyntaxError;")
    lines.append("            ours_accept = CPython rejects and GraphMend accepts.")
    for status in FAILING:
        bad = [r for r in results if r.status == status]
        if not bad:
            continue
        lines += ["", f"== {status} ({len(bad)}) =="]
        for r in bad:
            lines.append(f"{r.path}")
            lines += [f"    {d}" for d in r.detail.splitlines()]
    both_reject = [r for r in results if r.status == BOTH_REJECT]
    if both_reject:
        lines += ["", f"== both_reject ({len(both_reject)}), GraphMend's error shown =="]
        lines += [f"{r.path}\n    {r.detail}" for r in both_reject]
    return "\n".join(lines) + "\n"


def run(
    limit: int | None = None,
    packages: Sequence[str] | None = None,
    report_path: Path = DEFAULT_REPORT,
    workers: int | None = None,
    progress: bool = False,
    version: tuple[int, int] | None = None,
) -> tuple[list[Result], str]:
    """Collects, checks and reports; returns (results, report text).

    `version` other than the running interpreter's takes that CPython as the oracle (found by
    find_python) and its stdlib as the stdlib part of the corpus."""
    oracle_python = None
    stdlib = None
    if version is not None and tuple(version) != tuple(sys.version_info[:2]):
        oracle_python = find_python(version)
        if oracle_python is None:
            raise FileNotFoundError(f"no CPython {version[0]}.{version[1]} found for the oracle")
        stdlib = oracle_stdlib(oracle_python)
    files, notes = corpus_files(packages or DEFAULT_PACKAGES, stdlib)
    chosen = sample(files, limit)
    if limit is not None:
        notes.append(f"limited to {len(chosen)} of {len(files)} files (evenly spread)")
    if oracle_python is not None:
        notes.append(f"grammar {version[0]}.{version[1]}: oracle {oracle_python}")
    start = time.monotonic()
    results = run_corpus(
        chosen, workers=workers, progress=progress, version=version, oracle_python=oracle_python
    )
    report = format_report(results, notes, time.monotonic() - start)
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(report, encoding="utf-8")
    return results, report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="check N files spread over the corpus"
    )
    parser.add_argument(
        "--package",
        action="append",
        default=None,
        help="stdlib, torch, transformers or a directory (repeatable)",
    )
    parser.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument(
        "--report", type=Path, default=DEFAULT_REPORT, help="where to write the report"
    )
    parser.add_argument(
        "--version",
        default=None,
        help="grammar to check, e.g. 3.12 (default: the running interpreter's); "
        "another version's CPython is the oracle and gives the stdlib",
    )
    parser.add_argument("--one", metavar="TASK", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        _init_worker()
        group, path, version, oracle = json.loads(args.one)
        print(
            json.dumps(
                check_file(group, path, tuple(version) if version else None, oracle).__dict__
            )
        )
        return 0
    version = tuple(map(int, args.version.split("."))) if args.version else None
    results, report = run(
        args.limit, args.package, args.report, args.workers, progress=True, version=version
    )
    print(report)
    print(f"report written to {args.report}")
    return 1 if any(r.status in FAILING for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
