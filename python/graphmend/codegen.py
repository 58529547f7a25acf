"""Compiling mended text with the original's line numbers.

Mended code is compiled under the original file name, and every position in it names the
original's line, so tracebacks, ``inspect`` and Dynamo's break reports point at the file on
disk. Three entry points:

* ``compile_text``: a whole text, renumbered afterwards where lines moved (``linetable``);
* ``compile_mended``: a mended module, compiling only its skeleton when the original's
  ``.pyc`` can give the untouched functions (``splice``);
* ``compile_touched`` and ``TouchedCode``: only the functions a rewrite touched (the object
  mender), compiled when first asked for;
* ``compile_function``: one function on its own (the object mender), nested in a scope
  whose parameters become its free variables, and in a class of its enclosing class's name
  (private names mangle, ``super()`` finds ``__class__``, as before);
* ``bind_globals``: the same result for a function whose text did not change, without
  compiling: its bytecode loads the given global names from new closure cells instead.
"""

from __future__ import annotations

import __future__
import builtins
import opcode
import sys
from types import CodeType
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from . import _core, linetable, splice

__all__ = [
    "compile_text",
    "compile_mended",
    "compile_touched",
    "TouchedCode",
    "compile_function",
    "bind_globals",
    "global_loads",
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


def compile_touched(
    result, path: str, wanted: Iterable[Tuple[str, int]]
) -> Dict[Tuple[str, int], Optional[CodeType]]:
    """The code of the functions ``wanted`` (qualname, original first line) of a mended
    module (a ``MendResult``) with the original's line numbers, as ``compile_mended`` would
    compile them (None where two share both; absent where the module has none): all of
    ``TouchedCode`` at once."""
    wanted = set(wanted)
    touched = TouchedCode(result, path, wanted)
    found: Dict[Tuple[str, int], Optional[CodeType]] = {}
    for key in wanted:
        if touched.has(key):
            found[key] = touched.get(key)
    return found


class TouchedCode:
    """The code of the functions a rewrite touched in a mended module (a ``MendResult``;
    ``wanted``: their (qualname, original first line)), for the object mender, which needs
    no module code and reaches few of a library file's touched functions: the skeleton (it
    holds every touched function whole: the core stubs only bodies at module or class scope
    no edit touches) is compiled when the first one is asked for, and each function is
    renumbered to the original's lines when it is asked for; nothing is read from the
    original's ``.pyc``. The code is the one ``compile_mended``
    gives (``tests/python/test_splice.py``). ``SyntaxError`` or ``ValueError`` from ``has``
    or ``get``: the mended text does not compile."""

    def __init__(self, result, path: str, wanted: Iterable[Tuple[str, int]]) -> None:
        # only what compiling needs: not the result's table, diagnostics and edits
        self._texts = (result.skeleton, result.source, result.line_map)
        self._path = path
        self._wanted = frozenset(wanted)
        self._lines: Optional[linetable.LineMap] = None  # None: the lines did not move
        # (qualname, original first line) -> code as compiled, None where two share both
        self._index: Optional[Dict[Tuple[str, int], Optional[CodeType]]] = None

    def _compiled(self) -> Dict[Tuple[str, int], Optional[CodeType]]:
        if self._index is not None:
            return self._index
        (skeleton, source, line_map), path = self._texts, self._path
        line_map = list(line_map)
        code = None
        if skeleton is not None:
            try:
                code = builtins.compile(skeleton, path, "exec", dont_inherit=True)
            except (SyntaxError, ValueError):
                code = None
        if code is None:
            code = builtins.compile(source, path, "exec", dont_inherit=True)
        identity = line_map == list(range(1, len(line_map) + 1))
        if not identity and not linetable.SUPPORTED:
            raise ValueError(f"no line renumbering on Python {'.'.join(map(str, _version()))}")
        index: Dict[Tuple[str, int], Optional[CodeType]] = {}
        for mended_code in splice.code_by_name_and_line(code).values():
            if mended_code is None:
                continue
            line = mended_code.co_firstlineno
            moved = not identity and 1 <= line <= len(line_map)
            original_line = line_map[line - 1] if moved else line
            key = (mended_code.co_qualname, original_line or line)
            if key in self._wanted:
                index[key] = None if key in index else mended_code
        self._lines = None if identity else linetable.LineMap(line_map)
        self._index = index
        self._texts = None
        return index

    def has(self, key: Tuple[str, int]) -> bool:
        """Whether the compiled module has code of that name and original first line (one
        of ``wanted``)."""
        return key in self._compiled()

    def get(self, key: Tuple[str, int]) -> Optional[CodeType]:
        """The code of that name and original first line, renumbered (None: none, or two)."""
        code = self._compiled().get(key)
        if code is None or self._lines is None:
            return code
        return linetable.remap_lines(code, self._lines)


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


# ---------------------------------------------------------------------------------------------
# Binding globals to closure cells in compiled code.

# The bytecode ``bind_globals`` rewrites is CPython 3.11's (where ``splice`` is checked too):
# elsewhere the caller compiles the function again.
BIND_SUPPORTED = sys.version_info[:2] == (3, 11)

_OP = opcode.opmap
_LOAD_GLOBAL = _OP["LOAD_GLOBAL"]
_GLOBAL_WRITES = frozenset((_OP["STORE_GLOBAL"], _OP["DELETE_GLOBAL"]))
_EXTENDED_ARG = _OP["EXTENDED_ARG"]
_CACHE_UNITS = opcode._inline_cache_entries  # per opcode: the cache units that follow it
_NO_LOCATION_UNIT = 0x80 | (15 << 3)  # a location table entry: one code unit, no position
_PUSH_NULL_UNIT = bytes((_OP["PUSH_NULL"], 0))
_NOP_UNIT = bytes((_OP["NOP"], 0))


def bind_globals(code: CodeType, names: Sequence[str]) -> Optional[CodeType]:
    """``code`` with each global name in ``names`` turned into a free variable (appended to
    ``co_freevars``), as compiling the function nested in a scope that binds those names
    would (``compile_function``), but without compiling: each ``LOAD_GLOBAL`` of such a name
    becomes ``[PUSH_NULL,] LOAD_DEREF`` padded with ``NOP`` to the same length, so every
    offset, position and exception handler stays where it was; a function that had no free
    variables gets the ``COPY_FREE_VARS`` the compiler puts first (the exception table moves
    by that one unit, the location table gets an entry without position for it).

    None where this does not apply and the caller compiles: another Python version, a name
    the code also assigns as a global or that nested code loads (it would need a cell passed
    down), or an argument that would not fit one byte."""
    if not BIND_SUPPORTED:
        return None
    wanted = set(names)
    nested_loads: List[str] = []
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _global_names(const, nested_loads, all_ops=True)
    if wanted.intersection(nested_loads):
        return None
    raw = bytearray(code.co_code)
    for op in _GLOBAL_WRITES:
        if any(code.co_names[arg] in wanted for _, _, arg in _ops(raw, op)):
            return None
    sites = []  # (first unit of the instruction, its LOAD_GLOBAL unit, name, push NULL)
    for start, at, arg in _ops(raw, _LOAD_GLOBAL):
        if code.co_names[arg >> 1] in wanted:
            sites.append((start, at, code.co_names[arg >> 1], arg & 1))
    if not sites:
        return None
    added = tuple(name for name in names if name not in code.co_freevars)
    freevars = code.co_freevars + added
    if len(freevars) > 255:
        return None
    prefix = not code.co_freevars
    if not prefix:  # COPY_FREE_VARS comes first: it copies one more cell
        if raw[0] != _OP["COPY_FREE_VARS"] or raw[1] != len(code.co_freevars):
            return None
        raw[1] = len(freevars)
    first_free = code.co_nlocals + sum(1 for n in code.co_cellvars if n not in code.co_varnames)
    index = {name: first_free + i for i, name in enumerate(freevars)}
    for start, at, name, push_null in sites:
        if index[name] > 255:
            return None
        units = (_PUSH_NULL_UNIT if push_null else b"") + bytes((_OP["LOAD_DEREF"], index[name]))
        end = at + 2 * (1 + _CACHE_UNITS[_LOAD_GLOBAL])
        raw[start:end] = units + _NOP_UNIT * ((end - start - len(units)) // 2)
    linetable, exceptiontable = code.co_linetable, code.co_exceptiontable
    if prefix:
        raw[0:0] = bytes((_OP["COPY_FREE_VARS"], len(freevars)))
        linetable = bytes((_NO_LOCATION_UNIT,)) + linetable
        exceptiontable = _shifted_exception_table(exceptiontable, 1)
    bound = code.replace(
        co_code=bytes(raw),
        co_freevars=freevars,
        co_names=_unnamed(bytes(raw), code.co_names, wanted),
        co_linetable=linetable,
        co_exceptiontable=exceptiontable,
    )
    if any(bound._varname_from_oparg(index[name]) != name for name in added):
        return None  # not the frame layout this expects
    return bound


# The opcodes whose argument indexes ``co_names`` (LOAD_GLOBAL's shifted by one bit).
_NAME_OPS = tuple(sorted(opcode.hasname))


def _unnamed(raw: bytes, names: Tuple[str, ...], bound: set) -> Tuple[str, ...]:
    """``names`` with each bound global that no instruction of ``raw`` still names
    renamed out of reach, so the names the code uses are those a compiler would list: Dynamo
    reads them to decide whether a frame holds anything of torch's (``has_tensor_in_frame``).
    The entry stays, so no instruction's index moves."""
    used = set()
    for op in _NAME_OPS:
        for _, _, arg in _ops(raw, op):
            used.add(arg >> 1 if op == _LOAD_GLOBAL else arg)
    return tuple(
        f"<bound {name}>" if name in bound and at not in used else name
        for at, name in enumerate(names)
    )


def _ops(raw: bytes, op: int):
    """(first unit, the opcode's unit, argument with its EXTENDED_ARG prefixes) of each
    instruction ``op`` in ``raw`` (a search: an opcode sits at an even offset, and inline
    caches are zeros in ``co_code``)."""
    byte = bytes((op,))
    at = raw.find(byte)
    while at != -1:
        if at % 2 == 0:
            start, arg, shift = at, raw[at + 1], 8
            while start >= 2 and raw[start - 2] == _EXTENDED_ARG:
                start -= 2
                arg |= raw[start + 1] << shift
                shift += 8
            yield start, at, arg
        at = raw.find(byte, at + 1)


def global_loads(code: CodeType) -> List[str]:
    """The names ``code`` (and the code nested in it) loads as globals, in order of first
    load: a search of the bytecode (``dis`` takes far longer)."""
    names: Dict[str, None] = {}
    _loads(code, names)
    return list(names)


def may_load_any(code: CodeType, names: Dict[str, Any]) -> bool:
    """Whether ``code`` (or the code nested in it) may load one of ``names`` as a global: a
    cheap test on the names it uses at all (attributes too), before ``global_loads``."""
    if not names.keys().isdisjoint(code.co_names):
        return True
    return any(type(const) is CodeType and may_load_any(const, names) for const in code.co_consts)


def global_writes(code: CodeType) -> List[str]:
    """The global names ``code`` (and the code nested in it) assigns or deletes (``global
    NAME`` and a store)."""
    out: List[str] = []
    raw = code.co_code
    for op in _GLOBAL_WRITES:
        out.extend(code.co_names[arg] for _, _, arg in _ops(raw, op))
    for const in code.co_consts:
        if type(const) is CodeType:
            out.extend(global_writes(const))
    return out


def global_uses(code: CodeType, name: str) -> List[Tuple[str, Any]]:
    """How ``code`` (and the code nested in it) uses each load of the global ``name``:
    ``("attribute", None)`` for `NAME.x`; for `NAME[k]` with ``k`` a constant,
    ``("item attribute", k)`` for `NAME[k].x`, ``("item call", k)`` for `NAME[k](...)` and
    ``("item", k)`` for any other use; the same with ``"keyed"`` for a key computed without
    a branch (`NAME[task]`, `NAME[self.cfg.task]`), its key None; ``("other", None)`` for
    anything else (a comparison, an argument, a store)."""
    import dis

    found: List[Tuple[str, Any]] = []
    steps = list(dis.get_instructions(code))
    for at, step in enumerate(steps):
        if step.opname == "LOAD_GLOBAL" and step.argval == name:
            found.append(_use_of(steps, at))
    for const in code.co_consts:
        if type(const) is CodeType:
            found.extend(global_uses(const, name))
    return found


_ATTRIBUTE_LOADS = ("LOAD_ATTR", "LOAD_METHOD")
# Steps after which the value under a key may not be the one the code loaded: a jump, an
# end of the code, a reordering of the stack.
_BRANCHES = frozenset(opcode.hasjrel + opcode.hasjabs)
_REORDERS = ("SWAP", "COPY", "RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "YIELD_VALUE")


def _use_of(steps, at: int) -> Tuple[str, Any]:
    """The use of the global loaded by ``steps[at]`` (``global_uses``)."""
    following = steps[at + 1 : at + 2]
    if following and following[0].opname in _ATTRIBUTE_LOADS:
        return ("attribute", None)
    subscript = _subscript_of(steps, at)
    if subscript is None:
        return ("other", None)
    key_steps = steps[at + 1 : subscript]
    constant = len(key_steps) == 1 and key_steps[0].opname == "LOAD_CONST"
    kind, key = ("item", key_steps[0].argval) if constant else ("keyed", None)
    # the value under the key is called where a NULL goes below the container (3.11)
    called = bool(steps[at].arg & 1) or at > 0 and steps[at - 1].opname == "PUSH_NULL"
    after = steps[subscript + 1 : subscript + 2]
    if after and after[0].opname in _ATTRIBUTE_LOADS:
        return (kind + " attribute", key)
    if (
        called
        and after
        and after[0].opname not in ("COPY", "TO_BOOL")
        and "JUMP" not in after[0].opname
    ):
        return (kind + " call", key)
    return (kind, key)


def _subscript_of(steps, at: int) -> Optional[int]:
    """The index of the BINARY_SUBSCR that takes the value ``steps[at]`` loads as its
    container, its key computed by the straight-line steps between; None otherwise."""
    import dis

    depth = 1  # the loaded value, at the bottom
    for index in range(at + 1, len(steps)):
        step = steps[index]
        if step.opname == "BINARY_SUBSCR":
            return index if depth == 2 else None
        if step.opcode in _BRANCHES or step.opname in _REORDERS:
            return None
        if step.opname in ("CACHE", "NOP", "EXTENDED_ARG"):
            continue
        arg = step.arg if step.opcode >= dis.HAVE_ARGUMENT else None
        depth += dis.stack_effect(step.opcode, arg, jump=False)
        if depth < 2:
            return None
    return None


_LOAD_GLOBAL_BYTE = bytes((_LOAD_GLOBAL,))


def _loads(code: CodeType, names: Dict[str, None]) -> None:
    raw = code.co_code
    at = raw.find(_LOAD_GLOBAL_BYTE)
    while at != -1:
        if not at & 1:  # an opcode, not an argument
            arg, back, shift = raw[at + 1], at - 2, 8
            while back >= 0 and raw[back] == _EXTENDED_ARG:
                arg |= raw[back + 1] << shift
                back, shift = back - 2, shift + 8
            names[code.co_names[arg >> 1]] = None
        at = raw.find(_LOAD_GLOBAL_BYTE, at + 1)
    for const in code.co_consts:
        if type(const) is CodeType:
            _loads(const, names)


def _global_names(code: CodeType, out: List[str], all_ops: bool = False) -> None:
    """The global names ``code`` and its nested code load (and, ``all_ops``, assign or
    delete)."""
    raw = code.co_code
    for _, _, arg in _ops(raw, _LOAD_GLOBAL):
        out.append(code.co_names[arg >> 1])
    if all_ops:
        for op in _GLOBAL_WRITES:
            out.extend(code.co_names[arg] for _, _, arg in _ops(raw, op))
    for const in code.co_consts:
        if isinstance(const, CodeType):
            _global_names(const, out, all_ops)


def _shifted_exception_table(table: bytes, units: int) -> bytes:
    """An exception table (``Objects/exception_handling_notes.txt``) whose instructions all
    moved by ``units`` code units: each entry's start and target move. An entry is four
    varints (start, size, target, depth and lasti), 6 bits a byte, most significant first,
    bit 6 set on all but the last byte, bit 7 on the first byte of an entry."""
    out = bytearray()
    value = field = 0
    for byte in table:
        value = (value << 6) | (byte & 63)
        if byte & 64:
            continue
        if field != 1 and field != 3:  # start, target
            value += units
        if value < 64:
            out.append(value | 128 if field == 0 else value)
        elif value < 4096:
            out.append(value >> 6 | 192 if field == 0 else value >> 6 | 64)
            out.append(value & 63)
        else:
            _write_exception_varint(out, value, first=field == 0)
        value, field = 0, (field + 1) & 3
    return bytes(out)


def _write_exception_varint(out: bytearray, value: int, first: bool) -> None:
    chunks = [value & 63]
    value >>= 6
    while value:
        chunks.append(value & 63)
        value >>= 6
    chunks.reverse()
    for index, chunk in enumerate(chunks):
        if index < len(chunks) - 1:
            chunk |= 64
        if index == 0 and first:
            chunk |= 128
        out.append(chunk)
