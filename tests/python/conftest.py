"""Shared pytest options and fixtures for GraphMend's Python tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parents[1]

# corpus.py is both a module of the test suite and a standalone script.
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

import case_files  # noqa: E402 (needs the path above)

if not any(isinstance(f, case_files.ProgramFinder) for f in sys.meta_path):
    sys.meta_path.append(case_files.ProgramFinder())


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("graphmend")
    group.addoption(
        "--corpus-limit",
        type=int,
        default=None,
        help="check only N files of the corpus, spread evenly over it "
        "(default: all; env GRAPHMEND_CORPUS_LIMIT)",
    )
    group.addoption(
        "--corpus-package",
        action="append",
        default=None,
        help="restrict the corpus to stdlib, torch, transformers or a directory (repeatable; "
        "env GRAPHMEND_CORPUS_PACKAGES, comma-separated)",
    )
    group.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite the goldens: tests/golden/*.dump3XX with the output of the real CPython "
        "of each version, tests/cases/*/*.py.mended with GraphMend's",
    )


@pytest.fixture(scope="session")
def corpus_limit(request: pytest.FixtureRequest) -> int | None:
    limit = request.config.getoption("--corpus-limit")
    if limit is None and os.environ.get("GRAPHMEND_CORPUS_LIMIT"):
        limit = int(os.environ["GRAPHMEND_CORPUS_LIMIT"])
    return limit


@pytest.fixture(scope="session")
def corpus_packages(request: pytest.FixtureRequest) -> list[str] | None:
    packages = request.config.getoption("--corpus-package")
    if not packages and os.environ.get("GRAPHMEND_CORPUS_PACKAGES"):
        packages = [p for p in os.environ["GRAPHMEND_CORPUS_PACKAGES"].split(",") if p]
    return packages or None


@pytest.fixture(scope="session")
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


@pytest.fixture(autouse=True)
def no_mending_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hook tests count the modules the importing process mended; a helper process mending
    ahead (graphmend.ahead) would take some of them, by chance. test_ahead.py turns it on."""
    monkeypatch.setenv("GRAPHMEND_AHEAD", "0")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test's captured output may hold a lone surrogate (a trap message of
    test_trap_fidelity's, echoed by Dynamo's logs), which pytest-xdist cannot send from a
    worker: the worker would crash. The report carries such text escaped."""
    outcome = yield
    report = outcome.get_result()
    report.sections = [(name, _sendable(text)) for name, text in report.sections]


def _sendable(text: str) -> str:
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
