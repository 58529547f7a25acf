"""graphmend.linetable: code compiled from mended text and renumbered has, instruction by
instruction, the positions of code compiled from a tree whose positions were mapped back
(the slower path it replaces), on the rewrite cases (tests/cases/) and on real transformers
modules."""

from __future__ import annotations

import ast
import glob
import importlib.util
import os
from types import CodeType

import pytest

from conftest import REPO_ROOT
from graphmend import linetable
from graphmend._mend_source import mend_source

pytestmark = pytest.mark.skipif(not linetable.SUPPORTED, reason="location table format not known")

PROGRAMS = sorted(glob.glob(os.path.join(REPO_ROOT, "tests", "cases", "*", "*.py")))
# Large transformers modules whose mended text has lines added (a statement whose rewrite has
# fewer lines is padded to its own: only longer rewrites move lines).
TRANSFORMERS_MODULES = (
    "models/table_transformer/modeling_table_transformer.py",
    "models/grounding_dino/modeling_grounding_dino.py",
    "models/bart/modeling_bart.py",
    "models/led/modeling_led.py",
    "models/longt5/modeling_longt5.py",
    "models/detr/modeling_detr.py",
)


def _map_positions(tree: ast.AST, line_map) -> None:
    """The slow path ``linetable`` replaces: every node's line numbers rewritten from mended
    lines to original lines (the end never before the start)."""
    count = len(line_map)

    def mapped(line: int) -> int:
        if 1 <= line <= count:
            return int(line_map[line - 1]) or line
        return line

    for node in ast.walk(tree):
        if not hasattr(node, "lineno"):
            continue
        start = mapped(node.lineno)
        end = mapped(getattr(node, "end_lineno", None) or node.lineno)
        node.lineno = start
        if getattr(node, "end_lineno", None) is not None:
            if end < start:
                end = start
            node.end_lineno = end
            if end == start and node.end_col_offset is not None and node.col_offset is not None:
                if node.end_col_offset < node.col_offset:
                    node.end_col_offset = node.col_offset


def tree_compiled(source: str, line_map, path: str) -> CodeType:
    tree = ast.parse(source, path)
    _map_positions(tree, line_map)
    return compile(tree, path, "exec", dont_inherit=True)


def assert_same_code(expected: CodeType, got: CodeType) -> None:
    assert got.co_qualname == expected.co_qualname
    assert got.co_code == expected.co_code, expected.co_qualname
    assert got.co_firstlineno == expected.co_firstlineno, expected.co_qualname
    assert list(got.co_positions()) == list(expected.co_positions()), expected.co_qualname
    assert line_runs(got) == line_runs(expected), expected.co_qualname
    nested = [[c for c in code.co_consts if isinstance(c, CodeType)] for code in (expected, got)]
    assert len(nested[0]) == len(nested[1])
    for inner_expected, inner_got in zip(*nested):
        assert_same_code(inner_expected, inner_got)


def line_runs(code: CodeType):
    """``co_lines`` with neighbouring ranges of one line merged: how the table is cut into
    entries differs between the two paths, the line of each instruction does not."""
    runs = []
    for start, end, line in code.co_lines():
        if runs and runs[-1][2] == line and runs[-1][1] == start:
            runs[-1] = (runs[-1][0], end, line)
        else:
            runs.append((start, end, line))
    return runs


def moved_mended(path: str):
    """(mended text, line map) of a file whose mending moves lines, else None."""
    with open(path, encoding="utf-8") as handle:
        result = mend_source(handle.read(), path, trace_all=True)
    line_map = list(result.line_map)
    if result.error is not None or line_map == list(range(1, len(line_map) + 1)):
        return None
    return result.source, line_map


def check_file(path: str) -> bool:
    mended = moved_mended(path)
    if mended is None:
        return False
    source, line_map = mended
    renumbered = linetable.remap_lines(compile(source, path, "exec", dont_inherit=True), line_map)
    assert_same_code(tree_compiled(source, line_map, path), renumbered)
    return True


# Files whose two paths differ, as {file: reason}; strict: a fixed one fails until removed.
KNOWN_MISMATCHES = {
    os.path.join(REPO_ROOT, "tests", "cases", "defer", "import_compound_first.py"): "the `try:` "
    "after the runtime import's own line maps onto that line: the renumbered code keeps the "
    "NOP CPython emits for the `try:` line, the tree path (same line as the instruction "
    "before) drops it",
}


def test_program_suite_matches_the_tree_path():
    checked = [path for path in PROGRAMS if path not in KNOWN_MISMATCHES and check_file(path)]
    assert len(checked) >= 10  # the suite has many rewrites that add or remove lines


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(
            path, marks=pytest.mark.xfail(strict=True, reason=reason), id=os.path.basename(path)
        )
        for path, reason in KNOWN_MISMATCHES.items()
    ],
)
def test_known_mismatch_matches_the_tree_path(path):
    assert check_file(path)


@pytest.mark.parametrize("module", TRANSFORMERS_MODULES)
def test_transformers_modules_match_the_tree_path(module):
    spec = importlib.util.find_spec("transformers")
    if spec is None:
        pytest.skip("transformers is not installed")
    path = os.path.join(os.path.dirname(spec.origin), module)
    if not os.path.exists(path):
        pytest.skip(f"{module} is not in this transformers version")
    assert check_file(path), f"mending {module} no longer moves lines: pick another module"


def test_identity_map_re_encodes_every_position():
    """Every code object re-encoded with no line moved decodes to its own positions: the
    encoder writes each entry kind (no location, no columns, long form) the way CPython
    reads it."""
    path = os.path.join(os.path.dirname(ast.__file__), "ast.py")  # large, varied code
    with open(path, encoding="utf-8") as handle:
        code = compile(handle.read(), path, "exec", dont_inherit=True)

    def walk(code: CodeType) -> int:
        positions = list(code.co_positions())
        table = linetable._encode(positions, code.co_firstlineno)
        assert list(code.replace(co_linetable=table).co_positions()) == positions, code.co_qualname
        return 1 + sum(walk(c) for c in code.co_consts if isinstance(c, CodeType))

    assert walk(code) > 50


def test_a_shifted_function_only_gets_a_new_first_line():
    source = "def f(x):\n    return x + 1\n"
    code = compile(source, "<shift>", "exec")
    function = next(c for c in code.co_consts if isinstance(c, CodeType))
    moved = linetable.remap_lines(code, [11, 12])  # every line 10 further down
    moved_function = next(c for c in moved.co_consts if isinstance(c, CodeType))
    assert moved_function.co_linetable == function.co_linetable
    assert moved_function.co_firstlineno == 11
    assert [line for _, _, line in line_runs(moved_function) if line] == [11, 12]
