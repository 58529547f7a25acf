"""Compiling mended text with the original's line numbers.

Mended code is compiled under the original file name, and every position in it names the
original's line, so tracebacks, ``inspect`` and Dynamo's break reports point at the file on
disk. Three entry points:

* ``compile_text``: a whole text, renumbered afterwards where lines moved (``linetable``);
* ``compile_mended``: a mended module, compiling only its skeleton when the original's
  ``.pyc`` can give the untouched functions (``splice``);
* ``compile_function``: one function on its own (the object mender), nested in a scope
  whose parameters become its free variables, and in a class of its enclosing class's name
  (private names mangle, ``super()`` finds ``__class__``, as before).
"""

from __future__ import annotations

import __future__
import builtins
from types import CodeType
from typing import List, Optional, Sequence, Tuple

from . import _core, linetable, splice

__all__ = [
    "compile_text",
    "compile_mended",
    "compile_function",
    "FUTURE_FLAGS",
]

# The compiler flags of every ``from __future__ import``: a function's code carries those of
# its module, and compiling it again needs them.
FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag

_SCOPE_NAME = "__graphmend_scope__"
_REINDENT = "  "
_LINE_ENDS = frozenset(("Newline", "NL"))


def compile_text(source: str, line_map: Sequence[int], path: str) -> CodeType:
    """Code of mended text with the original's line numbers: compiled from the text, then
    renumbered where lines moved (``linetable``)."""
    code = builtins.compile(source, path, "exec", dont_inherit=True)
    if list(line_map) == list(range(1, len(line_map) + 1)):
        return code
    if not linetable.SUPPORTED:  # not reached: the core parses no grammar linetable lacks
        raise ValueError(f"no line renumbering on Python {'.'.join(map(str, _version()))}")
    return linetable.remap_lines(code, line_map)


def _version() -> Tuple[int, ...]:
    import sys

    return tuple(sys.version_info[:2])


def compile_mended(result, path: str, data: Optional[bytes]) -> CodeType:
    """Code of a mended module (a ``MendResult`` of ``data``) with the original's line
    numbers. Where the original's ``.pyc`` is valid, only the skeleton is compiled and the
    untouched functions come from the ``.pyc`` (``splice``); otherwise the whole text."""
    line_map = list(result.line_map)
    if result.skeleton is not None and data is not None:
        original = splice.original_code(path, data)
        if original is not None:
            try:
                skeleton = compile_text(result.skeleton, line_map, path)
            except (SyntaxError, ValueError):
                skeleton = None
            code = skeleton and splice.splice(skeleton, original, result.stubbed_lines)
            if code is not None:
                return code
    return compile_text(result.source, line_map, path)


def compile_function(
    lines: Sequence[str],
    original_lines: Sequence[int],
    filename: str,
    qualname: str,
    class_name: str,
    scope_names: Sequence[str],
    flags: int,
) -> CodeType:
    """The code of the one ``def`` whose text is ``lines`` (decorators first, with their line
    breaks), ``original_lines`` the original line of each, compiled alone: nested in a
    function whose parameters are ``scope_names`` (they become the def's free variables) and,
    when ``class_name``, in a class of that name. ``flags``: its module's ``__future__``
    flags."""
    name = qualname.rsplit(".", 1)[-1]
    indent = _leading_space(lines[0])
    header: List[str] = []
    dedent = None
    if class_name or scope_names or indent:
        # Statements of the scope share one indentation; a class body goes deeper. The def
        # keeps its own columns where they leave room for that, else it is indented more.
        room = indent if not class_name else (" " if _spaces(indent, 2) else None)
        if not room:
            lines, indented = _indented(lines)
            dedent = (len(_REINDENT), indented)
            indent = _REINDENT + indent
            room = indent if not class_name else " "
        header.append(f"def {_SCOPE_NAME}({', '.join(scope_names)}):\n")
        # The class or def statement would bind its name in the scope, turning the def's
        # references to that name (recursion, isinstance checks) into free variables.
        bound = class_name or name
        if bound not in scope_names:
            header.append(f"{room}global {bound}\n")
        if class_name:
            header.append(f"{room}class {class_name}:\n")
    text = "".join(header) + "".join(lines)
    line_map = [original_lines[0]] * len(header) + list(original_lines)
    if dedent is not None:
        dedent = (dedent[0], frozenset(line + len(header) for line in dedent[1]))
    module = builtins.compile(text, filename, "exec", flags=flags, dont_inherit=True)
    code = module
    path = ([_SCOPE_NAME] if header else []) + ([class_name] if class_name else []) + [name]
    for step in path:
        code = _code_in(code, step)
    if header:
        synthetic = f"{_SCOPE_NAME}.<locals>." + (f"{class_name}.{name}" if class_name else name)
        code = _with_qualname(code, synthetic, qualname)
    if dedent is None and line_map == list(range(1, len(line_map) + 1)):
        return code
    return linetable.remap_lines(code, line_map, dedent)


def _leading_space(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\f"))]


def _spaces(indent: str, at_least: int) -> bool:
    return len(indent) >= at_least and indent.strip(" ") == ""


def _indented(lines: Sequence[str]) -> Tuple[List[str], List[int]]:
    """``lines`` indented by ``_REINDENT``, except those that start inside a token (a string
    spanning lines), whose text must stay as it is; and the (1-based) lines indented. The
    core's lexer tells which lines those are."""
    text = "".join(lines)
    prologue = 0
    if _leading_space(lines[0]):  # an indented block lexes only inside a compound statement
        text = "if 1:\n" + text
        prologue = 1
    inside = set()
    for kind, (line, _), (end_line, _) in _core.tokenize(text):
        if kind not in _LINE_ENDS:  # a line break ends these tokens, on the next line
            inside.update(range(line + 1 - prologue, end_line + 1 - prologue))
    out, indented = [], []
    for number, line in enumerate(lines, 1):
        if number in inside or not line.strip():
            out.append(line)
        else:
            out.append(_REINDENT + line)
            indented.append(number)
    return out, indented


def _code_in(code: CodeType, name: str) -> CodeType:
    for const in code.co_consts:
        if isinstance(const, CodeType) and const.co_name == name:
            return const
    raise ValueError(f"no code named {name!r} in the compiled text")


def _with_qualname(code: CodeType, old: str, new: str) -> CodeType:
    """Replaces the qualname prefix ``old`` by ``new`` in ``code`` and its nested code."""
    consts = tuple(
        _with_qualname(c, old, new) if isinstance(c, CodeType) else c for c in code.co_consts
    )
    qualname = code.co_qualname
    if qualname == old or qualname.startswith(old + "."):
        qualname = new + qualname[len(old) :]
    return code.replace(co_consts=consts, co_qualname=qualname)
