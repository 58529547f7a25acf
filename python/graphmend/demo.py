"""What GraphMend's front end sees in a PyTorch model file.

    python -m graphmend.demo examples/model.py

Shows the tokens the mender cares about, the classes and functions the C++ parser found
(with line numbers), whether its AST equals CPython's, a syntactic preview of the statements
that break the graph, the mender's diagnostics and diff (graphmend.mend_source) where the
package has it, and how long the C++ parse takes next to ast.parse.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import graphmend
from graphmend import _core

REDUCTIONS = {
    "sum",
    "max",
    "min",
    "mean",
    "prod",
    "any",
    "all",
    "argmax",
    "argmin",
    "nonzero",
    "count_nonzero",
    "equal",
    "allclose",
    "unique",
    "item",
    "tolist",
}
SIDE_EFFECTS = {"print", "info", "warning", "warning_once", "debug", "warn"}


def tree_from_dump(dump: str) -> ast.AST:
    """Rebuilds ast objects from our dump text (it is ast.dump's format), to walk it here."""
    namespace = {name: getattr(ast, name) for name in dir(ast) if not name.startswith("_")}
    namespace.update({"Ellipsis": Ellipsis, "inf": float("inf"), "infj": complex(0, float("inf"))})
    return eval(dump, {"__builtins__": {}}, namespace)  # noqa: S307 (our own dump text)


def token_text(lines: list[bytes], start: tuple[int, int], end: tuple[int, int]) -> str:
    if start[0] != end[0] or start[0] > len(lines):
        return ""
    return lines[start[0] - 1][start[1] : end[1]].decode("utf-8", "replace")


def show_tokens(source: str) -> None:
    tokens = graphmend.tokenize(source)
    lines = source.encode("utf-8").splitlines()
    kinds = Counter(kind for kind, _, _ in tokens)
    print(f"tokens: {len(tokens)} ({', '.join(f'{k} {n}' for k, n in kinds.most_common(6))}, ...)")
    interesting = []
    for index, (kind, start, end) in enumerate(tokens):
        text = token_text(lines, start, end)
        if kind in ("Kw_if", "Kw_raise", "Kw_not"):
            interesting.append((start, kind, text))
        elif kind == "Name" and (text in SIDE_EFFECTS or text in REDUCTIONS):
            previous = tokens[index - 1][0] if index else ""
            if text in SIDE_EFFECTS or previous == "Dot":
                interesting.append((start, kind, text))
    print("tokens of interest (line:col kind text):")
    for (line, col), kind, text in interesting:
        print(f"  {line:>4}:{col:<3} {kind:<8} {text}")


def call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):
            return func.attr
        if isinstance(func, ast.Name):
            return func.id
    return ""


def show_structure(tree: ast.Module) -> None:
    print("classes and functions:")
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = ", ".join(ast.unparse(b) for b in node.bases)
            print(f"  line {node.lineno:>3}-{node.end_lineno:<3} class {node.name}({bases})")
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    args = ", ".join(a.arg for a in item.args.args)
                    print(
                        f"  line {item.lineno:>3}-{item.end_lineno:<3}     def {item.name}({args})"
                    )
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.col_offset == 0:
            print(f"  line {node.lineno:>3}-{node.end_lineno:<3} def {node.name}")


def show_targets(tree: ast.Module) -> None:
    print("graph-break candidates inside functions (syntactic preview):")
    found = []
    functions = [
        n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    for function in functions:
        for node in ast.walk(function):
            if isinstance(node, ast.If):
                calls = {call_name(n) for n in ast.walk(node.test)} & REDUCTIONS
                raises = any(isinstance(s, ast.Raise) for s in node.body)
                if calls and raises and isinstance(node.test, ast.UnaryOp):
                    kind = "validation guard  -> [Trap] torch._assert_async"
                elif calls:
                    kind = "data-dependent if -> [Where] torch.where"
                else:
                    continue
                found.append((node.lineno, f"{kind}: if {ast.unparse(node.test)}:"))
            elif isinstance(node, ast.Expr) and call_name(node.value) in SIDE_EFFECTS:
                found.append(
                    (
                        node.lineno,
                        "side effect       -> [Defer] replay after the graph: "
                        + ast.unparse(node.value),
                    )
                )
    for line, text in sorted(set(found)):
        print(f"  line {line:>3} ({function_at(functions, line)}): {text}")


def function_at(functions: list[ast.AST], line: int) -> str:
    inner = [f for f in functions if f.lineno <= line <= f.end_lineno]
    return min(inner, key=lambda f: f.end_lineno - f.lineno).name if inner else "?"


def show_mender(source: str, filename: str) -> None:
    """The mender's verdict and diff, where the installed package has one."""
    mend = getattr(graphmend, "mend_source", None)
    if mend is None:
        return
    import difflib

    result = mend(source, filename)
    print(f"mender: {len(result.fixed)} break site(s) rewritten, {len(result.declined)} declined")
    for diagnostic in result.diagnostics:
        print(f"  {diagnostic}")
    if result.changed:
        diff = difflib.unified_diff(
            source.splitlines(keepends=True),
            result.source.splitlines(keepends=True),
            f"{filename} (original)",
            f"{filename} (mended)",
        )
        print("".join(diff), end="")
    print()


def show_timing(source: str, repeats: int) -> None:
    blob = source.encode("utf-8")
    ours = min(_core._parse_only([blob] * 20, None)[1] for _ in range(repeats)) / 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(20):
                ast.parse(source)
            best = min(best, (time.perf_counter() - start) / 20)
    print(
        f"parse time: graphmend (C++) {ours * 1e6:.0f} us, ast.parse {best * 1e6:.0f} us "
        f"({best / ours:.1f}x)"
        if ours > 0
        else "parse time: n/a"
    )


def show_breaks(path: Path) -> bool:
    """Graph breaks of the file's example() model under torch._dynamo.explain, before and
    after graphmend.mend, and whether outputs and printed text agree. False on a mismatch."""
    import contextlib
    import importlib.util
    import io

    import torch

    spec = importlib.util.spec_from_file_location(f"graphmend_demo_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # inspect.getsource finds classes through sys.modules
    spec.loader.exec_module(module)
    if not hasattr(module, "example"):
        print("(no example() in the file: breaks not measured)")
        return True
    model, inputs = module.example()
    with torch.no_grad():
        before = graphmend.explain(model, *inputs)
        mended = graphmend.mend(model)
        after = graphmend.explain(mended, *inputs)
        runs = []
        for candidate in (model, mended):
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                runs.append((candidate(*inputs), printed.getvalue()))
    print(f"torch._dynamo.explain, original: {before}")
    print(f"torch._dynamo.explain, mended:   {after}")
    same_output = torch.equal(runs[0][0], runs[1][0])
    same_text = runs[0][1] == runs[1][1]
    print(f"eager outputs identical: {same_output}; printed text identical: {same_text}")
    return same_output and same_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("file", type=Path, help="a Python source file (e.g. examples/model.py)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)

    data = args.file.read_bytes()
    source = graphmend.decode_source(data).decode("utf-8")
    print(
        f"GraphMend {graphmend.__version__} front end on {args.file} "
        f"({len(data)} bytes, {source.count(chr(10))} lines)\n"
    )
    status = 0
    try:
        show_tokens(source)
    except SyntaxError as err:
        print(f"lexer stopped: {err.msg} (line {err.lineno}, column {err.offset})")
        status = 1
    print()
    try:
        dump = graphmend.dump_ast(source, include_attributes=True)
    except SyntaxError as err:
        print(f"parser rejected the file: {err.msg} (line {err.lineno}, column {err.offset})")
        return 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = dump == ast.dump(ast.parse(source), include_attributes=True)
    print(f"AST: {len(dump)} characters of dump; identical to CPython's ast.dump: {same}")
    if not same:
        status = 1
    try:
        tree = tree_from_dump(dump)
    except Exception as err:  # a malformed dump: show what we can
        print(f"could not rebuild the tree from the dump: {err!r}")
        return 1
    show_structure(tree)
    print()
    show_targets(tree)
    print()
    try:
        show_mender(source, str(args.file))
    except Exception as err:  # the demo still shows the front end
        print(f"mender failed: {err!r}\n")
        status = 1
    print()
    try:
        if not show_breaks(args.file):
            status = 1
    except Exception as err:  # the demo still shows the rest
        print(f"measuring breaks failed: {err!r}")
        status = 1
    print()
    show_timing(source, args.repeats)
    return status


if __name__ == "__main__":
    sys.exit(main())
