"""The layers of the Python package (docs/ARCHITECTURE.md): every module of
``python/graphmend`` has a level, and imports only run down (or across, within a level),
with no cycle, function-level imports included. A subpackage's modules (``runtime.defer``)
have the subpackage's level.

The modules are read, not imported: Python's own ``ast`` parses them here (a test may use
it; the package itself asks the core). An import counts wherever it is written, at the top
or inside a function, and so does ``importlib.import_module`` of a literal name.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, Set

import pytest

from conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "python" / "graphmend"

# Lowest first. A module imports only from lower levels or its own.
LEVELS = (
    {"_core"},  # the compiled core (an extension module)
    # leaves: only the compiled core below them
    {
        "_version",
        "_source",
        "options",
        "libraries",
        "linetable",
        "splice",
        "reports",
        "registry",
        "runtime",
        "files",
    },
    {"_mend_source", "codegen"},  # the mender on text; compiling mended text
    {"cache"},  # the on-disk cache, shared by the hook and the object mender
    {"hook", "ahead"},  # the import hook and its helper process
    {"mender"},  # graphmend.mend
    {"boundary", "explainer"},  # the compile boundary; graphmend.explain
    {"runtime_aware", "evidence"},  # graphmend.compile's run-time evidence
    {"compiling", "exporting"},  # graphmend.compile, graphmend.export
    {"cli"},  # the command line: its commands, and the findings, codes, formats, config below them
    {"__init__", "__main__", "api", "demo"},  # the faces of the package
)
LEVEL = {name: index for index, names in enumerate(LEVELS) for name in names}


def level(name: str) -> int:
    return LEVEL[name.split(".")[0]]


def modules() -> Dict[str, Path]:
    """The package's modules by dotted name below ``graphmend`` (``runtime`` for
    ``runtime/__init__.py``, ``runtime.defer`` for ``runtime/defer.py``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if len(parts) > 1 and parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, known: Set[str]) -> Iterator[str]:
    """The package's modules that ``name`` imports (``__init__`` for names taken from the
    package itself)."""
    package_parts = ["graphmend", *name.split(".")]
    if path.name != "__init__.py" or name == "__init__":
        package_parts.pop()  # a module's relative imports start from its package
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package_parts[: len(package_parts) - node.level + 1])
                full = f"{base}.{node.module}" if node.module else base
            else:
                full = node.module or ""
            yield from _targets(full, [alias.name for alias in node.names], known)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield from _targets(alias.name, [], known)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            target = node.args[0].value
            yield from _targets(
                "graphmend" + target if target.startswith(".") else target, [], known
            )


def _targets(full: str, names, known: Set[str]) -> Iterator[str]:
    parts = full.split(".")
    if parts[0] != "graphmend":
        return
    if len(parts) > 1:
        module = ".".join(parts[1:])
        # from .x import y: y a module of the package x, or a name of x
        subs = [f"{module}.{name}" for name in names if f"{module}.{name}" in known]
        yield from subs
        if len(subs) < len(names) or not names:
            while module not in known and "." in module:
                module = module.rsplit(".", 1)[0]
            if module in known:
                yield module
        return
    for name in names:  # from graphmend import x: a module, or a name of __init__
        yield name if name in known else "__init__"
    if not names:
        yield "__init__"


def graph() -> Dict[str, Set[str]]:
    found = modules()
    known = {*found, "_core"}
    return {
        name: {target for target in imported(name, path, known) if target != name}
        for name, path in found.items()
    }


def test_every_module_has_a_level():
    missing = sorted({name.split(".")[0] for name in modules()} - set(LEVEL))
    assert not missing, f"give these modules a level in LEVELS: {missing}"


def test_no_import_runs_upward():
    upward = [
        f"{name} (level {level(name)}) imports {target} (level {level(target)})"
        for name, targets in graph().items()
        for target in sorted(targets)
        if level(target) > level(name)
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycle():
    edges = graph()
    state: Dict[str, int] = {}  # 1: on the current path, 2: done
    path = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for target in sorted(edges.get(name, ())):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] + [target]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[name] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name)


def test_the_reader_sees_function_level_imports(tmp_path):
    """The check itself: an import inside a function, and a literal import_module, count."""
    source = (
        "def f():\n    from .hook import install\n"
        "def g():\n    import importlib\n    importlib.import_module('graphmend.mender')\n"
        "from . import options, __version__\n"
    )
    path = tmp_path / "m.py"
    path.write_text(source)
    found = set(imported("m", path, {"hook", "mender", "options"}))
    assert found == {"hook", "mender", "options", "__init__"}


def test_the_package_imports_no_ast():
    """The package asks the core about Python source; it parses none with ``ast`` (the demo,
    which compares the core's tree with CPython's, aside)."""
    users = []
    for name, path in modules().items():
        if name == "demo":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            if "ast" in names:
                users.append(name)
    assert not users, f"these modules import ast: {users}"


def test_the_runtime_imports_only_the_core():
    """The runtime runs inside the user's process, in mended code: nothing of GraphMend but
    the compiled core and itself."""
    outside = {
        f"{name} imports {target}"
        for name, targets in graph().items()
        if name.split(".")[0] == "runtime"
        for target in targets
        if target != "_core" and target.split(".")[0] != "runtime"
    }
    assert not outside, sorted(outside)


# Strings of the rewrites that look like a call of the runtime but are not one.
NOT_RUNTIME = {
    "ModelMixin",
    "clone",
    "copy_",
    "format",
    "is_floating_point",
    "is_grad_enabled",
    "isclose",
    "logical_and",
    "logical_not",
    "where",
}


def test_the_runtime_has_every_name_mended_code_calls():
    """Mended code (and code mended and cached by an earlier build) calls
    ``__graphmend_rt__.<name>``: every name the goldens and cases call, and every name the
    rewrites write, is in ``graphmend.runtime.__all__`` and is there."""
    import re

    import graphmend.runtime

    called = set()
    for folder in ("tests", "examples"):
        for path in (REPO_ROOT / folder).rglob("*.mended"):
            called.update(re.findall(r"__graphmend_rt__\.(\w+)", path.read_text()))
    written = set()
    for path in (REPO_ROOT / "src" / "rewrite").rglob("*.cpp"):
        written.update(re.findall(r'"\.([A-Za-z_]\w*)[("]', path.read_text()))
    written -= NOT_RUNTIME
    assert len(called) > 25 and len(written) > 25  # the readers found them
    exported = set(graphmend.runtime.__all__)
    assert not (called | written) - exported, sorted((called | written) - exported)
    assert all(hasattr(graphmend.runtime, name) for name in exported)
