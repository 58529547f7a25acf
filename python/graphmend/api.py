"""Mending live objects: ``mend``, ``compile`` and ``explain``.

``mend_source`` works on text. The functions here work on the objects a program already
holds (a function, a bound method, an ``nn.Module`` instance or class): they fetch the source
of the module that defines each function, mend that whole module text (so the analyses see
its imports), compile the mended text under the original file name with every line number
mapped back to the original line, and build new function objects from the result.

What a mended function keeps from the original: its globals (the original module's dict,
the only name added there is ``__graphmend_rt__``), its closure cells, defaults, keyword
defaults, ``__name__``, ``__qualname__``, ``__doc__``, ``__module__``, ``__annotations__``
and ``__dict__`` (``__wrapped__`` included). Helpers it calls by a global name are mended
too and bound to it through closure cells, so the original module's globals stay exactly
as they were. ``self.method(...)`` calls reach the mended methods because a mended module
is an instance of a mended subclass of its class.

Nothing the user holds is modified: ``mend(module)`` returns a shallow copy of the module
tree whose modules of mended classes are instances of a subclass; parameters and buffers
are the same tensors, so ``state_dict()`` is identical.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import dataclasses
import dis
import functools
import importlib
import inspect
import itertools
import linecache
import logging
import os
import sys
import types
import warnings
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _core
from .hook import import_diagnostics, mended_at_import
from .options import all_on as all_rewrites
from .options import switches as rewrite_switches
from .libraries import is_library_file, is_library_module

__all__ = [
    "mend",
    "compile",
    "explain",
    "MendReport",
    "MendNote",
    "Diagnostic",
    "ExplainReport",
    "BreakInfo",
    "CompileReport",
    "CaptureOptionsEnabled",
    "compile_report",
]

_RUNTIME_NAME = _core.RUNTIME_NAME
_SCOPE_NAME = "__graphmend_scope__"

# ---------------------------------------------------------------------------------------------
# Diagnostics and reports.


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One break site of ``mend_source`` (see docs/DIAGNOSTICS.md), in original lines."""

    code: str
    filename: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    fixed: bool
    rewrite: str

    def __str__(self) -> str:
        state = f"fixed ({self.rewrite})" if self.fixed else "not fixed"
        return f"{self.filename}:{self.line}:{self.column + 1}: {self.code} {state}: {self.message}"


@dataclasses.dataclass(frozen=True)
class MendNote:
    """What ``mend`` did with one function: ``status`` is ``"mended"`` (rebuilt from mended
    source), ``"unchanged"`` (rebuilt or kept, nothing to rewrite) or ``"skipped"`` (kept as
    it was, for ``reason``: no source, a builtin, a C function...)."""

    qualname: str
    filename: str
    line: int
    status: str
    reason: str = ""

    def __str__(self) -> str:
        where = f"{self.filename}:{self.line}" if self.filename else "<no source>"
        tail = f": {self.reason}" if self.reason else ""
        return f"{self.status:9} {self.qualname} ({where}){tail}"


@dataclasses.dataclass
class MendReport:
    """Everything ``mend`` looked at: one note per function or class, and the diagnostics of
    ``mend_source`` that fall inside the functions it rebuilt."""

    notes: List[MendNote] = dataclasses.field(default_factory=list)
    diagnostics: List[Diagnostic] = dataclasses.field(default_factory=list)

    @property
    def fixed(self) -> List[Diagnostic]:
        return [d for d in self.diagnostics if d.fixed]

    @property
    def declined(self) -> List[Diagnostic]:
        return [d for d in self.diagnostics if not d.fixed]

    @property
    def rebuilt(self) -> bool:
        """Whether ``mend`` built a function, class or wrapper that differs from the
        original's; False means its copy behaves exactly as the original."""
        return any(n.status == "mended" for n in self.notes)

    def __str__(self) -> str:
        lines = [
            f"graphmend: {len(self.fixed)} break site(s) fixed, {len(self.declined)} left, "
            f"{len(self.notes)} object(s) looked at"
        ]
        lines += [f"  {d}" for d in self.diagnostics]
        lines += [f"  {n}" for n in self.notes]
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Source mending, once per (file text, options).


def _identity_result(source: str) -> Dict[str, Any]:
    return {
        "source": source,
        "changed": False,
        "diagnostics": [],
        "line_map": list(range(1, source.count("\n") + 2)),
        "error": None,
    }


def _mend_text(source: str, filename: str, options: Dict[str, Any]) -> Any:
    """Calls the mender: ``graphmend.mend_source`` when the package has it, else the binding,
    else (an extension without the mender) returns the text unchanged."""
    import graphmend

    impl = getattr(graphmend, "mend_source", None)
    if impl is not None:
        return impl(source, filename=filename, **options)
    core = getattr(graphmend, "_core", None)
    if core is not None and hasattr(core, "mend_source"):
        return core.mend_source(source, filename, **options)
    return _identity_result(source)


def _field(result: Any, name: str, default: Any = None) -> Any:
    if isinstance(result, dict):
        return result.get(name, default)
    return getattr(result, name, default)


@dataclasses.dataclass
class _MendedFile:
    filename: str
    original_text: str
    mended_text: str
    line_map: List[int]
    diagnostics: List[Diagnostic]
    error: Optional[str]
    original_tree: Optional[ast.Module]
    mended_tree: Optional[ast.Module]  # line numbers already mapped to the original


_FILE_CACHE: Dict[Tuple[str, str, Tuple[Tuple[str, Any], ...]], _MendedFile] = {}


def _diagnostics_of(result: Any, filename: str) -> List[Diagnostic]:
    out = []
    for d in _field(result, "diagnostics", None) or []:
        out.append(
            Diagnostic(
                code=str(_field(d, "code", "")),
                filename=filename,
                line=int(_field(d, "line", 0) or 0),
                column=int(_field(d, "column", 0) or 0),
                end_line=int(_field(d, "end_line", 0) or _field(d, "line", 0) or 0),
                end_column=int(_field(d, "end_column", 0) or 0),
                message=str(_field(d, "message", "")),
                fixed=bool(_field(d, "fixed", False)),
                rewrite=str(_field(d, "rewrite", "") or ""),
            )
        )
    return out


def _map_positions(tree: ast.AST, line_map: List[int]) -> None:
    """Rewrites every node's line numbers from mended lines to original lines."""
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


def _file_options(filename: str, options: Dict[str, Any]) -> Dict[str, Any]:
    """The mender's options for one file. Runtime-aware mode passes ``only_lines`` as a map
    from file name to the lines Dynamo broke on there; a file it never broke in gets line 0,
    which no break site contains, so nothing in it is rewritten (an empty filter would mean
    no filter)."""
    lines_by_file = options.get("only_lines")
    if lines_by_file is None:
        return options
    return {**options, "only_lines": tuple(sorted(lines_by_file.get(filename, ()))) or (0,)}


def _mend_file(filename: str, text: str, options: Dict[str, Any]) -> _MendedFile:
    options = _file_options(filename, options)
    key = (filename, text, tuple(sorted(options.items())))
    cached = _FILE_CACHE.get(key)
    if cached is not None:
        return cached
    error = None
    original_tree = mended_tree = None
    mended_text = text
    line_map: List[int] = []
    diagnostics: List[Diagnostic] = []
    try:
        original_tree = ast.parse(text, filename)
    except (SyntaxError, ValueError) as exc:
        error = f"the source does not parse: {exc}"
    if error is None:
        # Whatever ``mend`` rebuilds is traced (the object goes to torch.compile), however its
        # file spells it (a forward of a subclass of an imported nn.Module subclass, a helper):
        # mend as library code, every function traced; only the functions reached are used.
        result = _mend_text(text, filename, {**options, "trace_all": True})
        diagnostics = _diagnostics_of(result, filename)
        failure = _field(result, "error", None)
        if failure:
            error = f"the mender rejected the source: {_field(failure, 'message', failure)}"
        else:
            mended_text = _field(result, "source", text)
            if isinstance(mended_text, bytes):
                mended_text = mended_text.decode("utf-8")
            line_map = list(_field(result, "line_map", None) or [])
            if not line_map:
                line_map = list(range(1, mended_text.count("\n") + 2))
            try:
                mended_tree = ast.parse(mended_text, filename)
            except SyntaxError as exc:
                error = f"the mended source does not parse: {exc}"
                mended_tree = None
            else:
                _map_positions(mended_tree, line_map)
    entry = _MendedFile(
        filename, text, mended_text, line_map, diagnostics, error, original_tree, mended_tree
    )
    if len(_FILE_CACHE) > 256:
        _FILE_CACHE.clear()
    _FILE_CACHE[key] = entry
    return entry


def _source_text(code: types.CodeType, globals_: Optional[dict]) -> Optional[str]:
    filename = code.co_filename
    if not filename or (filename.startswith("<") and filename not in linecache.cache):
        return None
    lines = linecache.getlines(filename, globals_)
    if not lines:
        return None
    return "".join(lines)


# ---------------------------------------------------------------------------------------------
# Finding a function's definition in a (mended) module tree.

_DEF_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclasses.dataclass
class _DefSite:
    node: ast.AST  # FunctionDef / AsyncFunctionDef
    class_name: Optional[str]  # the innermost enclosing class (name mangling, __class__)
    qualname: str


def _first_line(node: ast.AST) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])


def _find_defs(tree: ast.Module, qualname: str, first_line: int) -> List[_DefSite]:
    found: List[_DefSite] = []

    def visit(body_owner: ast.AST, prefix: str, class_name: Optional[str]) -> None:
        for child in ast.iter_child_nodes(body_owner):
            if isinstance(child, _DEF_NODES):
                name = prefix + child.name
                if name == qualname and _first_line(child) == first_line:
                    found.append(_DefSite(child, class_name, name))
                visit(child, name + ".<locals>.", class_name)
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".", child.name)
            elif isinstance(child, ast.Lambda):
                continue
            else:
                visit(child, prefix, class_name)

    visit(tree, "", None)
    return found


def _future_imports(tree: ast.Module) -> List[ast.stmt]:
    return [
        stmt
        for stmt in tree.body
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"
    ]


def _code_in(code: types.CodeType, name: str) -> Optional[types.CodeType]:
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    return None


def _with_qualnames(code: types.CodeType, old: str, new: str) -> types.CodeType:
    """Replaces the qualname prefix ``old`` by ``new`` in ``code`` and its nested code."""
    consts = tuple(
        _with_qualnames(c, old, new) if isinstance(c, types.CodeType) else c
        for c in code.co_consts
    )
    qualname = code.co_qualname
    if qualname == old or qualname.startswith(old + "."):
        qualname = new + qualname[len(old) :]
    return code.replace(co_consts=consts, co_qualname=qualname)


def _compile_def(
    site: _DefSite, future: List[ast.stmt], scope_names: List[str], filename: str
) -> types.CodeType:
    """Compiles one def alone, nested in a function whose parameters are ``scope_names`` (so
    those names become free variables of the def) and in a class of the original innermost
    class's name (so private names mangle and ``super()`` finds ``__class__`` as before)."""
    node = copy.deepcopy(site.node)
    line = node.lineno
    inner: ast.stmt = node
    if site.class_name is not None:
        inner = ast.ClassDef(
            name=site.class_name, bases=[], keywords=[], body=[node], decorator_list=[]
        )
    # The class or def statement would bind its name in the scope, turning the def's
    # references to that name (recursion, isinstance checks) into free variables.
    bound = site.class_name if site.class_name is not None else node.name
    binding = [] if bound in scope_names else [ast.Global(names=[bound])]
    scope = ast.FunctionDef(
        name=_SCOPE_NAME,
        args=ast.arguments(
            posonlyargs=[],
            args=[ast.arg(arg=n) for n in scope_names],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        ),
        body=[*binding, inner],
        decorator_list=[],
        returns=None,
    )
    module = ast.Module(body=[*copy.deepcopy(future), scope], type_ignores=[])
    for extra in (scope, inner, *binding):
        extra.lineno = extra.end_lineno = line
        extra.col_offset = extra.end_col_offset = 0
    ast.fix_missing_locations(module)
    module_code = builtins.compile(module, filename, "exec", dont_inherit=True)
    code = _code_in(module_code, _SCOPE_NAME)
    if site.class_name is not None:
        code = _code_in(code, site.class_name)
    code = _code_in(code, node.name)
    assert code is not None
    synthetic = f"{_SCOPE_NAME}.<locals>." + (
        f"{site.class_name}.{node.name}" if site.class_name else node.name
    )
    return _with_qualnames(code, synthetic, site.qualname)


def _global_loads(code: types.CodeType) -> List[str]:
    names: List[str] = []
    for instruction in dis.get_instructions(code):
        if instruction.opname == "LOAD_GLOBAL" and isinstance(instruction.argval, str):
            if instruction.argval not in names:
                names.append(instruction.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            for name in _global_loads(const):
                if name not in names:
                    names.append(name)
    return names


# ---------------------------------------------------------------------------------------------
# Which code is the user's (mended) and which is a library's (never touched).

def _skip_reason(fn: Any) -> Optional[str]:
    if not isinstance(fn, types.FunctionType):
        return f"not a Python function ({type(fn).__name__})"
    if mended_at_import(fn.__code__.co_filename):  # first: the cheapest test
        return "mended at import (graphmend.install)"
    if is_library_module(getattr(fn, "__module__", None)):
        return f"library code ({fn.__module__})"
    if is_library_file(fn.__code__.co_filename):
        return f"library code ({fn.__code__.co_filename})"
    code = fn.__code__
    if code.co_name == "<lambda>":
        return "a lambda (mend the function that defines it)"
    return None


# ---------------------------------------------------------------------------------------------
# The mender of objects.


class _Mender:
    def __init__(self, options: Dict[str, Any]):
        self.options = options
        self.report = MendReport()
        self.functions: Dict[int, Any] = {}  # id(original) -> mended (or original)
        self.cells: Dict[int, types.CellType] = {}  # id(original) -> cell of its mended form
        self.classes: Dict[int, type] = {}
        self.keep_alive: List[Any] = []
        self.seen_diagnostics: set = set()
        self.building: set = set()  # ids of functions being built (recursion)

    # -- functions ------------------------------------------------------------------------

    def note(self, qualname: str, filename: str, line: int, status: str, reason: str = "") -> None:
        self.report.notes.append(MendNote(qualname, filename, line, status, reason))

    def function(self, fn: Any, *, force_new: bool = False) -> Any:
        """Returns the mended form of ``fn`` (``fn`` itself when there is nothing to mend and
        ``force_new`` is false, or when it cannot be mended)."""
        key = id(fn)
        if key in self.functions:
            return self.functions[key]
        original = getattr(fn, "__graphmend_original__", None)
        if isinstance(original, types.FunctionType):
            fn = original
        reason = _skip_reason(fn)
        if reason is not None:
            rewrapped = self._rewrap(fn) if isinstance(fn, types.FunctionType) else None
            if rewrapped is not None:
                self.note(fn.__qualname__, "", 0, "mended", "a library wrapper around mended code")
                self.functions[key] = rewrapped
                return rewrapped
            self.note(getattr(fn, "__qualname__", repr(fn)), "", 0, "skipped", reason)
            self.functions[key] = fn
            return fn
        self.keep_alive.append(fn)
        # A recursive helper reaches itself: its cell is filled once it is built.
        self.cells[key] = types.CellType(fn)
        self.functions[key] = fn
        self.building.add(key)
        try:
            built = self._build(fn, force_new)
        except Exception as exc:  # never let mending break the program: keep the original
            self.note(fn.__qualname__, fn.__code__.co_filename, fn.__code__.co_firstlineno,
                      "skipped", f"could not rebuild: {type(exc).__name__}: {exc}")
            built = fn
        finally:
            self.building.discard(key)
        self.functions[key] = built
        self.cells[key].cell_contents = built
        return built

    def _wrapped_cells(self, fn: types.FunctionType) -> Dict[str, types.CellType]:
        """New cells for the closure cells of a decorator's wrapper (``functools.wraps``)
        that hold the wrapped function, holding its mended form instead."""
        wrapped = fn.__dict__.get("__wrapped__")
        if not isinstance(wrapped, types.FunctionType) or not fn.__closure__:
            return {}
        inner = self.function(wrapped)
        if inner is wrapped:
            return {}
        out = {}
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                holds = cell.cell_contents is wrapped
            except ValueError:  # an empty cell
                holds = False
            if holds:
                out[name] = types.CellType(inner)
        return out

    def _rewrap(self, fn: types.FunctionType) -> Optional[types.FunctionType]:
        """A library decorator's wrapper (``@torch.no_grad()``...) around mended user code:
        the same wrapper code with the mended function in its closure; None when there is
        nothing to rewrap."""
        cells = self._wrapped_cells(fn)
        if not cells:
            return None
        closure = tuple(cells.get(n, c) for n, c in zip(fn.__code__.co_freevars, fn.__closure__))
        return _copy_function(fn, fn.__code__, closure, cells)

    def _locate(self, fn: types.FunctionType) -> Tuple[Optional[_MendedFile], Any, str]:
        code = fn.__code__
        text = _source_text(code, fn.__globals__)
        if text is None:
            return None, None, "no source"
        mended = _mend_file(code.co_filename, text, self.options)
        if mended.error is not None:
            return None, None, mended.error
        sites = _find_defs(mended.mended_tree, code.co_qualname, code.co_firstlineno)
        originals = _find_defs(mended.original_tree, code.co_qualname, code.co_firstlineno)
        if len(sites) != 1 or len(originals) != 1:
            return None, None, "the source file does not match the function (edited since import?)"
        original_args = [a.arg for a in _all_args(originals[0].node.args)]
        expected = list(code.co_varnames[: _arg_count(code)])
        if original_args != expected:
            return None, None, "the source file does not match the function (edited since import?)"
        return mended, (sites[0], originals[0]), ""

    def _build(self, fn: types.FunctionType, force_new: bool) -> Any:
        code = fn.__code__
        mended, sites, reason = self._locate(fn)
        if mended is None:
            self.note(fn.__qualname__, code.co_filename, code.co_firstlineno, "skipped", reason)
            return fn
        site, original_site = sites
        changed = ast.dump(site.node) != ast.dump(original_site.node)
        future = _future_imports(mended.mended_tree)
        freevars = list(code.co_freevars)
        new_code = _compile_def(site, future, freevars, code.co_filename)
        # Helpers called by a global name: mend them and bind them as free variables.
        helpers: Dict[str, Any] = {}
        for name in _global_loads(new_code):
            value = fn.__globals__.get(name)
            if name in freevars or not isinstance(value, types.FunctionType):
                continue
            if _skip_reason(value) is not None:
                continue
            mended_helper = self.function(value)
            if mended_helper is not value or id(value) in self.building:
                helpers[name] = value
        if helpers:
            new_code = _compile_def(site, future, freevars + list(helpers), code.co_filename)
        self._collect_diagnostics(mended, original_site.node)
        rewrapped_cells = self._wrapped_cells(fn)
        if not changed and not helpers and not rewrapped_cells and not force_new:
            self.note(fn.__qualname__, code.co_filename, code.co_firstlineno, "unchanged")
            return fn
        original_cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
        closure = []
        for name in new_code.co_freevars:
            if name in rewrapped_cells:
                closure.append(rewrapped_cells[name])
            elif name in original_cells:
                closure.append(original_cells[name])
            elif name in helpers:
                closure.append(self.cells[id(helpers[name])])
            else:
                raise ValueError(f"mended code needs the free variable {name!r}")
        if changed:
            fn.__globals__.setdefault(_RUNTIME_NAME, _runtime())
        new = _copy_function(fn, new_code, tuple(closure) or None, rewrapped_cells)
        status = "mended" if changed else "unchanged"
        detail = "" if changed else "rebuilt to reach mended helpers"
        self.note(fn.__qualname__, code.co_filename, code.co_firstlineno, status, detail)
        return new

    def _collect_diagnostics(self, mended: _MendedFile, node: ast.AST) -> None:
        first, last = _first_line(node), node.end_lineno or node.lineno
        for d in mended.diagnostics:
            if first <= d.line <= last and d not in self.seen_diagnostics:
                self.seen_diagnostics.add(d)
                self.report.diagnostics.append(d)

    # -- classes --------------------------------------------------------------------------

    def cls(self, klass: type, *, force_new: bool = False) -> type:
        """A subclass of ``klass`` whose own user-defined methods are mended and whose mended
        user base classes follow it in the MRO, so ``super().forward(...)`` reaches mended
        code too; ``klass`` itself when nothing changes and not ``force_new``."""
        base = getattr(klass, "__graphmend_original__", None)
        if isinstance(base, type) and klass.__dict__.get("__graphmend_original__") is base:
            klass = base
        if id(klass) in self.classes and not force_new:
            return self.classes[id(klass)]
        if klass is object or is_library_module(klass.__module__):
            return klass
        self.classes[id(klass)] = klass
        namespace = self._members(klass)
        mended_bases = [m for m in (self.cls(b) for b in klass.__bases__) if m not in klass.__bases__]
        if not namespace and not mended_bases and not force_new:
            return klass
        rebuilt = len(namespace)
        extra = dict(
            __module__=klass.__module__,
            __qualname__=klass.__qualname__,
            __doc__=klass.__doc__,
            __graphmend_original__=klass,
        )
        try:
            mended = type(klass)(klass.__name__, (klass, *mended_bases), {**namespace, **extra})
        except TypeError:  # no consistent MRO: put the inherited mended members in one class
            flat: Dict[str, Any] = {}
            for owner in reversed(klass.__mro__):
                if owner is not object and not is_library_module(owner.__module__):
                    for name in owner.__dict__:
                        flat.pop(name, None)  # a more derived class overrides it
                    flat.update(self._members(owner))
            mended = type(klass)(klass.__name__, (klass,), {**flat, **extra})
        self.classes[id(klass)] = mended
        self.note(klass.__qualname__, "", 0, "mended" if rebuilt or mended_bases else "unchanged",
                  f"class: {rebuilt} member(s) rebuilt, {len(mended_bases)} mended base(s)")
        return mended

    def _members(self, owner: type) -> Dict[str, Any]:
        namespace = {}
        for name, value in list(owner.__dict__.items()):
            replacement = self._member(value)
            if replacement is not value:
                namespace[name] = replacement
        return namespace

    def _member(self, value: Any) -> Any:
        if isinstance(value, types.FunctionType):
            return self.function(value)
        if isinstance(value, (staticmethod, classmethod)):
            inner = self.function(value.__func__)
            return value if inner is value.__func__ else type(value)(inner)
        if isinstance(value, property) and isinstance(value.fget, types.FunctionType):
            getter = self.function(value.fget)
            if getter is value.fget:
                return value
            return property(getter, value.fset, value.fdel, value.__doc__)
        return value

    # -- module instances -----------------------------------------------------------------

    def module(self, module: Any, memo: Dict[int, Any], *, top: bool = False) -> Any:
        """A shallow copy of ``module`` (parameters and buffers shared) whose class is mended,
        with its submodules mended likewise; modules with nothing to mend are shared."""
        if id(module) in memo:
            return memo[id(module)]
        memo[id(module)] = module  # cycles
        children = {
            name: (self.module(child, memo) if child is not None else None)
            for name, child in module._modules.items()
        }
        klass = self.cls(type(module), force_new=top)
        if (
            klass is type(module)
            and not top
            and all(children[n] is module._modules[n] for n in children)
        ):
            return module
        twin = object.__new__(klass)
        state = dict(module.__dict__)
        for name, value in state.items():
            if name.startswith("_") and isinstance(value, (dict, set)) and not name.startswith("__"):
                state[name] = copy.copy(value)
        object.__setattr__(twin, "__dict__", state)
        for name, child in children.items():
            twin._modules[name] = child
        memo[id(module)] = twin
        return twin


def _copy_function(
    fn: types.FunctionType,
    code: types.CodeType,
    closure: Optional[tuple],
    rewrapped_cells: Dict[str, types.CellType],
) -> types.FunctionType:
    """A function with ``fn``'s globals, defaults and metadata and the given code/closure."""
    new = types.FunctionType(code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = copy.copy(fn.__kwdefaults__)
    new.__dict__.update(fn.__dict__)
    for attr in ("__qualname__", "__doc__", "__module__", "__annotations__"):
        setattr(new, attr, getattr(fn, attr))
    if rewrapped_cells:
        new.__wrapped__ = next(iter(rewrapped_cells.values())).cell_contents
    new.__graphmend_original__ = fn
    return new


def _all_args(arguments: ast.arguments) -> List[ast.arg]:
    return list(arguments.posonlyargs) + list(arguments.args) + list(arguments.kwonlyargs)


def _arg_count(code: types.CodeType) -> int:
    return code.co_argcount + code.co_kwonlyargcount


def _runtime() -> types.ModuleType:
    return sys.modules.get("graphmend.runtime") or importlib.import_module("graphmend.runtime")


_NN_MODULE: Optional[type] = None


def _nn_module() -> type:
    global _NN_MODULE
    if _NN_MODULE is None:
        import torch

        _NN_MODULE = torch.nn.Module
    return _NN_MODULE


def _looks_like_torch_module(obj: Any) -> bool:
    return "torch" in sys.modules and isinstance(obj, _nn_module())


def _is_module_class(obj: Any) -> bool:
    return isinstance(obj, type) and "torch" in sys.modules and issubclass(obj, _nn_module())


def _attach_report(obj: Any, report: MendReport) -> None:
    try:
        object.__setattr__(obj, "__graphmend_report__", report)
    except (AttributeError, TypeError):
        _REPORTS_BY_ID[id(obj)] = report


_REPORTS_BY_ID: Dict[int, MendReport] = {}


def mend_report(obj: Any) -> Optional[MendReport]:
    """The ``MendReport`` of an object ``mend`` returned (None for anything else)."""
    report = getattr(obj, "__graphmend_report__", None)
    if isinstance(report, MendReport):
        return report
    return _REPORTS_BY_ID.get(id(obj))


def mend(obj: Any, *, report: bool = False, **rewrites: bool) -> Any:
    """Returns a mended copy of ``obj``: a function, a bound method, an ``nn.Module``
    instance or an ``nn.Module`` class, with every user function it reaches rewritten by
    ``mend_source`` (see docs/MENDER.md).

    The result is of the same kind and behaves like ``obj`` when run eagerly; under
    ``torch.compile`` it breaks the graph less. ``obj`` and everything it holds are left as
    they were (a module's copy shares its parameters and buffers). Objects that cannot be
    mended (builtins, C functions, code without source) come back unchanged, with a note in
    the report. ``report=True`` returns ``(mended, MendReport)``; ``mend_report(mended)``
    finds the report later. One keyword per rewrite (``graphmend.options.REWRITES``:
    ``where``, ``defer``, ``trap``) switches it, all on by default.
    """
    result, mend_rep = _mend_with(obj, rewrite_switches(rewrites, "mend"))
    return (result, mend_rep) if report else result


def _mend_with(obj: Any, options: Dict[str, Any]) -> Tuple[Any, MendReport]:
    mender = _Mender(options)
    result = _mend_object(mender, obj)
    if result is not obj:
        _attach_report(result, mender.report)
    else:
        _REPORTS_BY_ID[id(obj)] = mender.report
    return result, mender.report


def _mend_for_compile(obj: Any, options: Dict[str, Any]) -> Tuple[Any, MendReport]:
    """What ``compile`` hands to ``torch.compile``: the mended copy, or ``obj`` itself when
    the copy would be identical (all it reaches was mended at import, or has nothing to
    rewrite): an extra class level and a copied ``__dict__`` are not free on every call."""
    mended, mend_rep = _mend_with(obj, options)
    return (mended if mend_rep.rebuilt else obj), mend_rep


def _mend_object(mender: _Mender, obj: Any) -> Any:
    if isinstance(obj, types.MethodType):
        owner = obj.__self__
        if _looks_like_torch_module(owner):
            twin = mender.module(owner, {}, top=True)
            return getattr(twin, obj.__func__.__name__)
        return types.MethodType(mender.function(obj.__func__, force_new=True), owner)
    if isinstance(obj, types.FunctionType):
        return mender.function(obj, force_new=True)
    if _looks_like_torch_module(obj):
        inner = getattr(obj, "_orig_mod", None)
        if type(obj).__name__ == "OptimizedModule" and _looks_like_torch_module(inner):
            mender.note(type(inner).__qualname__, "", 0, "mended",
                        "the torch.compile wrapper was dropped: compile the result")
            return mender.module(inner, {}, top=True)
        return mender.module(obj, {}, top=True)
    if _is_module_class(obj):
        return _mended_module_class(mender, obj)
    if isinstance(obj, type):
        return mender.cls(obj, force_new=True)
    mender.note(getattr(obj, "__qualname__", repr(obj)), "", 0, "skipped",
                f"not a Python function, method, module or class ({type(obj).__name__})")
    return obj


def _mended_module_class(mender: _Mender, klass: type) -> type:
    """A mended subclass whose instances also get mended submodule classes: after the
    original ``__init__`` builds the submodules, the ones it created (not those passed in
    as arguments) are switched to their mended classes."""
    mended = mender.cls(klass, force_new=True)
    options = mender.options
    original_init = mended.__init__

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        if type(self) is not mended:
            return
        passed_in = set()
        for value in list(args) + list(kwargs.values()):
            if isinstance(value, _nn_module()):
                passed_in.update(id(m) for m in value.modules())
        inner = _Mender(options)
        for sub in self.modules():
            if sub is self or id(sub) in passed_in:
                continue
            klass_of_sub = inner.cls(type(sub))
            if klass_of_sub is not type(sub):
                sub.__class__ = klass_of_sub

    __init__.__qualname__ = f"{klass.__qualname__}.__init__"
    __init__.__doc__ = getattr(klass.__init__, "__doc__", None)
    mended.__init__ = functools.wraps(klass.__init__)(__init__)
    return mended


# ---------------------------------------------------------------------------------------------
# The compile boundary.


def _boundary(
    call: Callable[..., Any], config: Optional[Dict[str, bool]] = None
) -> Callable[..., Any]:
    """``call`` behind the compile boundary: run (under the Dynamo ``config`` options
    runtime-aware mode chose), then replay the side effects deferred inside it; a trap's
    RuntimeError becomes the exception the original program raises. It runs on every call
    of a compiled object, so everything it needs is bound once, here."""
    runtime = _runtime()
    pending, flush, translate = runtime._records, runtime.flush, runtime.translate

    def bounded(*args: Any, **kwargs: Any) -> Any:
        try:
            if not config:
                return call(*args, **kwargs)
            with _dynamo_config(config):
                return call(*args, **kwargs)
        except RuntimeError as exc:
            original = translate(exc)
            if original is None:
                raise
            raise original from None
        finally:
            if pending:  # most calls defer nothing
                flush()

    return bounded


def _dynamo_config(options: Optional[Dict[str, bool]]) -> Any:
    if not options:
        return contextlib.nullcontext()
    import torch._dynamo

    return torch._dynamo.config.patch(**options)


def compile(  # noqa: A001 (graphmend.compile)
    obj: Any,
    *,
    example_inputs: Any = None,
    example_kwargs: Optional[Dict[str, Any]] = None,
    capture: Any = "auto",
    **torch_compile_kwargs: Any,
) -> Any:
    """``torch.compile(graphmend.mend(obj), **torch_compile_kwargs)`` with the runtime
    boundary: after each call (return or raise) the deferred prints, log records and warnings
    are replayed in order, and a failed trap raises the original exception.

    A function or method gives a function; a module instance gives the ``OptimizedModule``
    ``torch.compile`` returns (its ``forward`` runs the boundary, outside the traced frame).
    When mending rebuilds nothing (everything ``obj`` reaches was mended at import, or has
    nothing to rewrite), ``obj`` itself is compiled rather than an identical copy.

    With ``example_inputs`` (a tuple of positional arguments, or one tensor) and/or
    ``example_kwargs``, the mode is runtime-aware: ``obj`` is run once under
    ``torch._dynamo.explain`` and only the sites Dynamo broke on are mended; when breaks
    remain that no rewrite fixes and ``capture`` is ``"auto"`` (or True), the Dynamo options
    they call for (``capture_scalar_outputs`` for Python scalars,
    ``capture_dynamic_output_shape_ops`` for data-dependent output shapes,
    ``nested_graph_breaks`` for breaks below the compiled frame) are tried and the fewest
    that remove breaks and keep the outputs are kept, for this compile's calls only;
    enabling any warns ``CaptureOptionsEnabled``. ``capture=False`` never enables
    them. ``compile_report(compiled)`` returns the ``CompileReport``.
    """
    import torch

    if isinstance(obj, type):
        raise TypeError(
            "graphmend.compile takes a function, a method or a module instance; "
            "for a class, compile an instance of graphmend.mend(cls)"
        )
    if capture not in ("auto", True, False):
        raise ValueError(f"capture must be 'auto', True or False, not {capture!r}")
    if example_inputs is None and example_kwargs is None:
        target, mend_rep = _mend_for_compile(obj, all_rewrites())
        return _compiled(obj, target, mend_rep, None, torch_compile_kwargs)
    if isinstance(example_inputs, torch.Tensor) or not isinstance(example_inputs, (tuple, list)):
        example_inputs = () if example_inputs is None else (example_inputs,)
    mended, report, trial = _runtime_aware(
        obj, tuple(example_inputs), dict(example_kwargs or {}), capture, torch_compile_kwargs
    )
    compiled = _compiled(
        obj, mended, report.mend, report.capture_options, torch_compile_kwargs, trial
    )
    _attach_compile_report(compiled, report)
    _announce(report)
    return compiled


def _with_eager_precision(torch_compile_kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """``torch.compile``'s arguments with Inductor rounding every intermediate to its dtype
    (``emulate_precision_casts``), unless the caller set that option or chose another
    backend. Mending fuses code that ran in separate graphs: a predicated condition then
    reads a float16 intermediate that Inductor keeps in float32, where eager (and the
    original's graph break) rounded it (an fp16 overflow guard saw ``inf`` eagerly and a
    finite value fused). ``mode`` becomes the options it stands for (``torch.compile``
    takes one or the other)."""
    kwargs = dict(torch_compile_kwargs)
    if kwargs.get("backend", "inductor") != "inductor":
        return kwargs
    options = dict(kwargs.get("options") or {})
    mode = kwargs.pop("mode", None)
    if mode not in (None, "default"):
        from torch._inductor import list_mode_options

        options = {**list_mode_options(mode, kwargs.get("dynamic")), **options}
    options.setdefault("emulate_precision_casts", True)
    kwargs["options"] = options
    return kwargs


def _compiled(
    obj: Any,
    mended: Any,
    mend_rep: MendReport,
    config: Optional[Dict[str, bool]],
    torch_compile_kwargs: Dict[str, Any],
    compiled: Any = None,
) -> Any:
    """``torch.compile`` of ``mended`` behind the compile boundary (``compiled``: that
    ``torch.compile`` result, when runtime-aware mode already made and ran it)."""
    import torch

    if compiled is None:
        compiled = torch.compile(mended, **_with_eager_precision(torch_compile_kwargs))
    if isinstance(compiled, torch.nn.Module):
        compiled.forward = functools.wraps(compiled.forward)(_boundary(compiled.forward, config))
        _attach_report(compiled, mend_rep)
        return compiled

    target = obj.__func__ if isinstance(obj, types.MethodType) else obj

    boundary = _boundary(compiled, config)
    try:
        functools.update_wrapper(boundary, target)
    except (AttributeError, TypeError):
        pass
    boundary.__graphmend_compiled__ = compiled
    boundary.__graphmend_report__ = mend_rep
    return boundary


# ---------------------------------------------------------------------------------------------
# Explaining breaks.


@dataclasses.dataclass(frozen=True)
class BreakInfo:
    """One graph break Dynamo reported: where (the innermost user frame), Dynamo's reason
    and, when ``mend_source`` tagged that line, GraphMend's code and what became of it."""

    filename: str
    line: int
    reason: str
    code: str = ""
    fixed: Optional[bool] = None
    message: str = ""

    def __str__(self) -> str:
        where = f"{os.path.basename(self.filename)}:{self.line}" if self.filename else "?"
        tag = f" [{self.code}]" if self.code else ""
        return f"{where}{tag} {self.reason}"


@dataclasses.dataclass
class ExplainReport:
    """What ``explain`` measured: graphs, breaks and one ``BreakInfo`` per break."""

    graph_count: int
    graph_break_count: int
    breaks: List[BreakInfo]
    op_count: int = 0

    def __str__(self) -> str:
        lines = [
            f"{self.graph_count} graph(s), {self.graph_break_count} break(s), "
            f"{self.op_count} op(s)"
        ]
        for i, info in enumerate(self.breaks, 1):
            lines.append(f"  {i}. {info}")
            if info.message:
                lines.append(f"     graphmend: {info.message}")
        return "\n".join(lines)


def _first_line_of(text: str) -> str:
    for line in str(text).splitlines():
        line = line.strip()
        if line:
            return line
    return ""


def _library_file(filename: str) -> bool:
    """Files of torch and of GraphMend itself (the runtime frames of mended code)."""
    import torch

    roots = [os.path.dirname(torch.__file__), os.path.dirname(os.path.abspath(__file__))]
    path = os.path.abspath(filename)
    return any(path.startswith(root + os.sep) for root in roots)


def _user_frame(reason: Any) -> Tuple[str, int]:
    """The innermost frame of the break's stack that is the user's code."""
    stack = list(getattr(reason, "user_stack", None) or [])
    for frame in reversed(stack):
        filename = getattr(frame, "filename", "")
        if filename and not _library_file(filename):
            return filename, int(getattr(frame, "lineno", 0) or 0)
    if stack:
        return getattr(stack[-1], "filename", ""), int(getattr(stack[-1], "lineno", 0) or 0)
    return "", 0


def _tag_for(filename: str, line: int) -> Optional[Diagnostic]:
    if not filename or not line:
        return None
    diagnostics = import_diagnostics(filename)  # library code mended by the import hook
    if diagnostics is None:
        lines = linecache.getlines(filename)
        if not lines:
            return None
        diagnostics = _mend_file(filename, "".join(lines), all_rewrites()).diagnostics
    best = None
    for d in diagnostics:
        if d.line <= line <= max(d.end_line, d.line) and d.code.startswith("GM1"):
            if best is None or (d.end_line - d.line) < (best.end_line - best.line):
                best = d
    return best


def explain(obj: Any, *args: Any, **kwargs: Any) -> ExplainReport:
    """Runs ``obj(*args, **kwargs)`` under ``torch._dynamo.explain`` (after
    ``torch._dynamo.reset()``) and reports its graphs and breaks, each break with GraphMend's
    tag code when ``mend_source`` reports a break site on that line. ``obj`` is measured as
    given: pass ``graphmend.mend(obj)`` to measure the mended program."""
    output, _ = _run_explain(obj, args, kwargs)
    return _explain_report(output)[0]


def _run_explain(
    obj: Any, args: tuple, kwargs: dict, *, keep_result: bool = False
) -> Tuple[Any, Any]:
    """Dynamo's explain output for one call, with the compile boundary's flush and
    translate, and (``keep_result``) the call's result, which explain itself drops: a probe
    around ``obj`` keeps it (Dynamo inlines the probe, which adds no graph or break)."""
    import torch._dynamo

    results: List[Any] = []
    target = obj
    if keep_result:

        def target(*a: Any, **k: Any) -> Any:
            result = obj(*a, **k)
            results.append(result)
            return result

    torch._dynamo.reset()
    runtime = None
    try:
        runtime = _runtime()
    except ImportError:
        pass
    try:
        output = torch._dynamo.explain(target)(*args, **kwargs)
    except RuntimeError as exc:
        original = runtime.translate(exc) if runtime is not None else None
        if original is None:
            raise
        raise original from None
    finally:
        if runtime is not None:
            runtime.flush()
    return output, (results[0] if results else None)


def _explain_report(output: Any) -> Tuple[ExplainReport, List[str]]:
    """The report of Dynamo's explain output, and each break's whole reason text."""
    breaks = []
    reasons = []
    for reason in output.break_reasons:
        filename, line = _user_frame(reason)
        tag = _tag_for(filename, line)
        text = str(getattr(reason, "reason", reason))
        reasons.append(text)
        breaks.append(
            BreakInfo(
                filename=filename,
                line=line,
                reason=_first_line_of(text),
                code=tag.code if tag else "",
                fixed=tag.fixed if tag else None,
                message=tag.message if tag else "",
            )
        )
    report = ExplainReport(
        graph_count=int(output.graph_count),
        graph_break_count=int(output.graph_break_count),
        breaks=breaks,
        op_count=int(getattr(output, "op_count", 0) or 0),
    )
    return report, reasons


# ---------------------------------------------------------------------------------------------
# Runtime-aware compile: mend where Dynamo broke, and Dynamo's capture options where no
# rewrite can help.


class CaptureOptionsEnabled(UserWarning):
    """``graphmend.compile`` enabled Dynamo options for one compile (the message names
    them and the break sites that called for them; ``compile_report`` has the details)."""


# Signs, in Dynamo's whole reason text, of a break a capture option removes (Dynamo's own
# hint names the option; the rest are its break types for .item()/.tolist() and nonzero).
_CAPTURE_SIGNS: Dict[str, Tuple[str, ...]] = {
    "capture_scalar_outputs": (
        "capture_scalar_outputs",
        "Tensor.item()",
        "tolist",
        "Data dependent operator",
    ),
    "capture_dynamic_output_shape_ops": (
        "capture_dynamic_output_shape_ops",
        "Dynamic shape operator",
        "nonzero",
    ),
}

# Dynamo's option that resumes tracing inside the function a break happened in, instead of
# splitting every caller at its call: called for by a break below the compiled frame.
_NESTED_OPTION = "nested_graph_breaks"

_NO_FEWER = ": no fewer"

_PROFILE_SEED = 0


@dataclasses.dataclass
class CompileReport:
    """What runtime-aware ``graphmend.compile`` measured and decided.

    ``breaks_before``: Dynamo's breaks in the original program on the example inputs;
    ``breaks_after``: those of what the compiled object runs (mended, with the capture
    options enabled). ``mend`` is the ``MendReport`` of the line-filtered mending (``mended``
    lists the sites rewritten; sites Dynamo did not break on are declined). ``capture_options``
    maps each enabled Dynamo option to True, ``capture_reasons`` maps it to the breaks that
    called for it, and ``rejected`` maps each option called for but not enabled to why."""

    breaks_before: List[BreakInfo]
    breaks_after: List[BreakInfo]
    mend: MendReport
    capture_options: Dict[str, bool] = dataclasses.field(default_factory=dict)
    capture_reasons: Dict[str, List[BreakInfo]] = dataclasses.field(default_factory=dict)
    rejected: Dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def mended(self) -> List[Diagnostic]:
        return self.mend.fixed

    def __str__(self) -> str:
        lines = [
            f"graphmend.compile: {len(self.breaks_before)} break(s) in the profiling run, "
            f"{len(self.breaks_after)} left; {len(self.mended)} site(s) mended"
        ]
        lines += [f"  mended {d.filename}:{d.line} {d.code}" for d in self.mended]
        for option, breaks in self.capture_reasons.items():
            sites = ", ".join(str(b) for b in breaks)
            lines.append(f"  enabled torch._dynamo.config.{option} for: {sites}")
        lines += [f"  not enabled {o}: {why}" for o, why in self.rejected.items()]
        lines += [f"  left: {b}" for b in self.breaks_after]
        return "\n".join(lines)


def compile_report(compiled: Any) -> Optional[CompileReport]:
    """The ``CompileReport`` of an object runtime-aware ``graphmend.compile`` returned (None
    for anything else)."""
    report = getattr(compiled, "__graphmend_compile_report__", None)
    return report if isinstance(report, CompileReport) else None


def _attach_compile_report(compiled: Any, report: CompileReport) -> None:
    object.__setattr__(compiled, "__graphmend_compile_report__", report)


@dataclasses.dataclass
class _Run:
    report: ExplainReport
    reasons: List[str]  # each break's whole reason text
    depths: List[int]  # each break's number of user frames (more than 1: a nested frame)
    output: Any = None
    compiled: Any = None  # the torch.compile result a capture trial ran

    @property
    def breaks(self) -> List[BreakInfo]:
        return self.report.breaks


class _Profiler:
    """Runs the example call as if each run were the first: the RNG is seeded and the
    module's buffers (BatchNorm statistics, counters) are restored before each run, and the
    caller's RNG state and buffers are restored at the end."""

    def __init__(self, obj: Any, args: tuple, kwargs: dict):
        self.obj, self.args, self.kwargs = obj, args, kwargs
        owner = obj.__self__ if isinstance(obj, types.MethodType) else obj
        self.buffers = list(owner.buffers()) if _looks_like_torch_module(owner) else []
        self.saved: List[Any] = []
        self.rng = contextlib.ExitStack()

    def __enter__(self) -> "_Profiler":
        import torch

        self.rng.enter_context(torch.random.fork_rng())
        self.saved = [b.detach().clone() for b in self.buffers]
        return self

    def __exit__(self, *exc: Any) -> None:
        self._fresh()
        self.rng.close()

    def _fresh(self) -> None:
        import torch

        with torch.no_grad():
            for buffer, saved in zip(self.buffers, self.saved):
                buffer.copy_(saved)
        torch.manual_seed(_PROFILE_SEED)

    def explain(self, target: Any, *, keep_result: bool = False) -> _Run:
        self._fresh()
        output, result = _run_explain(target, self.args, self.kwargs, keep_result=keep_result)
        report, reasons = _explain_report(output)
        depths = [len(getattr(r, "user_stack", None) or ()) for r in output.break_reasons]
        return _Run(report, reasons, depths, result)

    def eager(self) -> Any:
        return self.call(self.obj)

    def call(self, target: Any, config: Optional[Dict[str, bool]] = None) -> Any:
        self._fresh()
        return _boundary(target, config)(*self.args, **self.kwargs)


def _break_lines(breaks: List[BreakInfo]) -> Dict[str, Tuple[int, ...]]:
    """File -> the lines Dynamo broke on there (the mender's per-file line filter)."""
    lines: Dict[str, set] = {}
    for info in breaks:
        if info.filename and info.line:
            lines.setdefault(info.filename, set()).add(info.line)
    return {filename: tuple(sorted(found)) for filename, found in lines.items()}


def _runtime_aware(
    obj: Any, args: tuple, kwargs: dict, capture: Any, torch_compile_kwargs: Dict[str, Any]
) -> Tuple[Any, CompileReport, Any]:
    """The mended object, the report and, when capture options were enabled, the
    ``torch.compile`` of the mended object that was run under them (None otherwise)."""
    with _Profiler(obj, args, kwargs) as profiler:
        before = profiler.explain(obj)
        options = {**all_rewrites(), "only_lines": _break_lines(before.breaks)}
        mended, mend_rep = _mend_for_compile(obj, options)
        after = profiler.explain(mended) if mend_rep.fixed else before
        report = CompileReport(before.breaks, after.breaks, mend_rep)
        trial = _choose_capture(profiler, mended, after, capture, report, torch_compile_kwargs)
    return mended, report, trial


def _capture_calls(run: _Run) -> Dict[str, List[BreakInfo]]:
    """Dynamo option -> the breaks of ``run`` it could remove (options already on, or that
    this torch lacks, are left out: they cannot help)."""
    import torch._dynamo

    def available(option: str) -> bool:
        return getattr(torch._dynamo.config, option, True) is False

    calls: Dict[str, List[BreakInfo]] = {}
    for info, text, depth in zip(run.breaks, run.reasons, run.depths):
        for option, signs in _CAPTURE_SIGNS.items():
            if available(option) and any(s in text for s in signs):
                calls.setdefault(option, []).append(info)
        if depth > 1 and available(_NESTED_OPTION):
            calls.setdefault(_NESTED_OPTION, []).append(info)
    return calls


def _choose_capture(
    profiler: _Profiler,
    mended: Any,
    after: _Run,
    capture: Any,
    report: CompileReport,
    torch_compile_kwargs: Dict[str, Any],
) -> Any:
    """Tries the Dynamo options the remaining breaks call for (see ``_OptionSearch``) and
    records them in ``report`` as enabled or rejected. Returns the ``torch.compile`` of
    ``mended`` that ran under the enabled options (None when none were enabled)."""
    calls = _capture_calls(after)
    if not calls:
        return None
    if capture is False:
        report.rejected = {option: "not tried: capture=False" for option in calls}
        return None
    search = _OptionSearch(profiler, mended, after, torch_compile_kwargs)
    best = search.fewest_options(search.largest_kept(tuple(calls)))
    if best is None or best[0] != search.last_tried:
        # Dynamo caches compiled code on the functions themselves, whatever the options it
        # was compiled under: a later trial's (perhaps rejected) graphs must not serve calls.
        import torch._dynamo

        torch._dynamo.reset()
    if best is None:
        report.rejected = search.rejected
        return None
    subset, trial = best
    report.capture_options = dict.fromkeys(subset, True)
    report.capture_reasons = {option: calls[option] for option in subset}
    report.rejected = {o: why for o, why in search.rejected.items() if o not in subset}
    report.breaks_after = trial.breaks
    return trial.compiled


_Kept = Tuple[Tuple[str, ...], "_Run"]  # options worth keeping, and their trial


class _OptionSearch:
    """Finds the Dynamo options to enable. All those called for are tried together first;
    while no combination is worth keeping and one failed (raised, or changed the outputs),
    every combination of one option fewer is tried: the first size with one worth keeping
    wins (of several, the one with the fewest breaks). Then each option is dropped in turn
    while the rest still remove as many breaks, so one that adds nothing is not enabled.
    An option rejected keeps the first reason found."""

    def __init__(self, profiler: _Profiler, mended: Any, after: _Run, compile_kwargs: Any):
        self.profiler, self.mended, self.after = profiler, mended, after
        self.compile_kwargs = compile_kwargs
        self.expected = profiler.eager()
        self.rejected: Dict[str, str] = {}
        self.last_tried: Tuple[str, ...] = ()

    def trial(self, subset: Tuple[str, ...]) -> Tuple[Optional[_Run], str]:
        self.last_tried = subset
        options = dict.fromkeys(subset, True)
        run, why = _capture_trial(
            self.profiler, self.mended, options, self.after, self.expected, self.compile_kwargs
        )
        for option in subset if run is None else ():
            others = ", ".join(o for o in subset if o != option)
            self.rejected.setdefault(option, f"{why} (tried with {others})" if others else why)
        return run, why

    def largest_kept(self, called: Tuple[str, ...]) -> Optional[_Kept]:
        for size in range(len(called), 0, -1):
            kept, failed = [], False
            for subset in itertools.combinations(called, size):
                run, why = self.trial(subset)
                if run is not None:
                    kept.append((subset, run))
                elif not why.endswith(_NO_FEWER):
                    failed = True
            if kept:
                return min(kept, key=lambda k: len(k[1].breaks))
            if not failed:  # they ran and removed nothing: fewer options will not either
                return None
        return None

    def fewest_options(self, best: Optional[_Kept]) -> Optional[_Kept]:
        for option in best[0] if best else ():
            if len(best[0]) == 1:
                break
            subset = tuple(o for o in best[0] if o != option)
            run, _ = self.trial(subset)
            if run is not None and len(run.breaks) <= len(best[1].breaks):
                best = (subset, run)
                self.rejected[option] = f"not needed: {len(run.breaks)} break(s) without it too"
        return best


def _capture_trial(
    profiler: _Profiler,
    mended: Any,
    options: Dict[str, bool],
    after: _Run,
    expected: Any,
    torch_compile_kwargs: Dict[str, Any],
) -> Tuple[Optional[_Run], str]:
    """Runs ``mended`` under ``options``: under ``explain``, then compiled with the caller's
    backend, since a backend can fail on graphs Dynamo captures under them (Inductor's bmm
    lowering guards on an unbacked size). Returns the explain run, with the compiled object
    in ``compiled``, and "" when the options are worth keeping; otherwise why not."""
    import torch

    try:
        with _dynamo_config(options):
            trial = profiler.explain(mended, keep_result=True)
    except Exception as exc:  # Dynamo fails inside these options on real models
        return None, f"Dynamo raised {_exception_line(exc)}"
    if len(trial.breaks) >= len(after.breaks):
        return None, f"{len(trial.breaks)} break(s) with it, {len(after.breaks)} without{_NO_FEWER}"
    if not _same_output(trial.output, expected):
        return None, "the outputs differ from the eager program's on the example inputs"
    try:
        trial.compiled = torch.compile(mended, **_with_eager_precision(torch_compile_kwargs))
        output = profiler.call(trial.compiled, options)
    except Exception as exc:
        return None, f"the compiled program raised {_exception_line(exc)}"
    if not _same_output(output, expected, compiled=True):
        return None, "the compiled program's outputs differ from the eager program's"
    return trial, ""


def _exception_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {_first_line_of(exc) or 'no message'}"


# A compiled program's floating outputs against the eager program's: a backend reorders
# and fuses arithmetic, so they agree to these tolerances, not to allclose's defaults.
_COMPILED_TOLERANCE = {"float16": (1e-2, 1e-3), "bfloat16": (1.6e-2, 1e-2)}
_COMPILED_TOLERANCE_DEFAULT = (1e-4, 1e-5)


def _same_output(a: Any, b: Any, compiled: bool = False) -> bool:
    """Equal results: tensors of one shape and dtype with equal (float: close; ``compiled``:
    close to a backend's tolerance) values, through tuples, lists and dicts; anything else
    by ``==``."""
    import torch

    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.is_floating_point() or a.is_complex():
            if not compiled:
                return bool(torch.allclose(a, b, equal_nan=True))
            dtype = str(a.dtype).replace("torch.", "")
            rtol, atol = _COMPILED_TOLERANCE.get(dtype, _COMPILED_TOLERANCE_DEFAULT)
            return bool(torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
        return bool(torch.equal(a, b))
    if isinstance(a, (tuple, list)) and type(a) is type(b):
        return len(a) == len(b) and all(_same_output(x, y, compiled) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_output(a[k], b[k], compiled) for k in a)
    try:
        return bool(a == b)
    except Exception:
        return False


def _announce(report: CompileReport) -> None:
    """One INFO log record always; a ``CaptureOptionsEnabled`` warning when options were
    enabled (they change how Dynamo traces, so the user must hear of it)."""
    logging.getLogger("graphmend").info("%s", report)
    if not report.capture_options:
        return
    parts = []
    for option, breaks in report.capture_reasons.items():
        sites = ", ".join(f"{os.path.basename(b.filename)}:{b.line}" for b in breaks)
        parts.append(f"torch._dynamo.config.{option} (breaks at {sites})")
    warnings.warn(
        "graphmend.compile enabled " + "; ".join(parts) + " for this compile's calls only; "
        "graphmend.compile_report(compiled) has the details",
        CaptureOptionsEnabled,
        stacklevel=3,
    )
