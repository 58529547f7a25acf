"""``graphmend.mend_source``: the mender on source text.

The C++ core parses the text, finds what TorchDynamo will trace, tags each graph break,
rewrites the ones it can prove safe ([Where], [Defer], [Trap], [Scalar]) and returns the
mended text with one diagnostic per break site. Mended code imports ``graphmend.runtime`` as
``__graphmend_rt__``; see that module for what the compile boundary must do.
"""

from __future__ import annotations

import dataclasses
from typing import List, NamedTuple, Optional, Sequence, Tuple, Union

from . import _core, options
from ._source import check_version, source_arg
from .reports import Diagnostic

__all__ = ["Definition", "MendDiagnostic", "MendResult", "Pragma", "mend_source"]


# The name mend_source's results have always used for the one shape of a break site.
MendDiagnostic = Diagnostic


class Definition(NamedTuple):
    """A function or class of the mended module (``mend_source(..., definitions=True)``):
    what ``graphmend.mend`` needs to find the definition of a live function and compile it
    again. Lines are 1-based; ``first_line`` counts decorators (CPython's ``co_firstlineno``).
    ``class_name`` is the innermost enclosing class ("" if none); ``touched`` tells whether
    a rewrite edited its text; ``params`` are its positional-only, positional and
    keyword-only parameter names."""

    is_class: bool
    qualname: str
    class_name: str
    first_line: int
    last_line: int
    mended_first_line: int
    mended_last_line: int
    touched: bool
    params: Tuple[str, ...]


class Pragma(NamedTuple):
    """A suppression comment of the input: its line, whether it covers the whole file
    (``ignore-file``), its codes (empty: every code) and whether it suppressed a site."""

    line: int
    file_level: bool
    codes: Tuple[str, ...]
    used: bool


@dataclasses.dataclass(frozen=True)
class MendResult:
    """What ``mend_source`` made of a text.

    ``source`` is the mended text (the input itself when nothing changed, when the input does
    not parse, or when a fix would not re-parse). ``line_map[i]`` is the original line of
    mended line ``i + 1``. ``edits`` are the applied ``(begin, end, replacement)`` byte ranges
    of the input's UTF-8 encoding. ``error`` is set (a GM00x diagnostic, also listed in
    ``diagnostics``) when the input does not parse. ``skeleton`` (asked for with
    ``skeleton=True``; None when nothing changed) is the mended text with the body of every
    function and class no rewrite touched replaced by a stub on the same lines and columns;
    ``stubbed_lines`` are their first lines, decorators included. The import hook compiles
    the skeleton and takes the untouched functions' and class bodies' code from the
    original's ``.pyc`` (``graphmend.splice``). ``definitions`` (asked for with
    ``definitions=True``) lists every function and class (``Definition``). ``pragmas`` are
    the input's suppression comments (``Pragma``): a site they cover is left as written.
    """

    source: str
    changed: bool
    diagnostics: Tuple[MendDiagnostic, ...]
    line_map: Tuple[int, ...]
    edits: Tuple[Tuple[int, int, str], ...]
    error: Optional[MendDiagnostic]
    skeleton: Optional[str] = None
    stubbed_lines: Tuple[int, ...] = ()
    definitions: Tuple[Definition, ...] = ()
    pragmas: Tuple["Pragma", ...] = ()

    @property
    def fixed(self) -> List[MendDiagnostic]:
        return [d for d in self.diagnostics if d.fixed]

    @property
    def declined(self) -> List[MendDiagnostic]:
        return [d for d in self.diagnostics if not d.fixed]


def _diagnostic(d: dict, filename: str) -> Diagnostic:
    return Diagnostic(
        **{field.name: d[field.name] for field in dataclasses.fields(Diagnostic)[:-1]},
        filename=filename,
    )


def mend_source(
    source: Union[str, bytes],
    filename: Optional[str] = None,
    *,
    version: Optional[Tuple[int, int]] = None,
    trace_all: bool = False,
    only_lines: Optional[Sequence[int]] = None,
    observed_lines: Optional[Sequence[int]] = None,
    entry_points: Sequence[str] = (),
    suppressed_codes: Sequence[str] = (),
    skeleton: bool = False,
    definitions: bool = False,
    **rewrites: bool,
) -> MendResult:
    """Mends the graph breaks of a module's source text; never raises on bad input.

    ``filename`` is recorded in deferred calls' sites (the pathname of replayed log records,
    the filename of replayed warnings); pass the file the code will be compiled under.
    ``version`` is the grammar, (3, 11) or (3, 12), default the running interpreter's.
    One keyword per rewrite (``graphmend.options.REWRITES``: ``where``, ``defer``, ``trap``)
    switches it, all on by default; a switched-off rewrite reports its breaks as not fixed. ``trace_all`` treats every function and method as traced by
    Dynamo (library code, whose callers live in other modules); by default only the entry
    points found in the text and what they reach are mended. ``only_lines`` (runtime-aware
    mode) rewrites only the breaks whose source range contains one of these 1-based lines
    (where Dynamo broke when the program ran); the others are reported as declined.
    ``observed_lines`` (runtime-aware mode) are the lines where Dynamo broke on a branch on a
    tensor: an ``if``/``elif``/``while`` condition or a conditional expression there is taken
    as a tensor condition even when the text does not show it, its unknown operands assumed
    tensors and checked at run time (``runtime.tensors``).
    ``entry_points`` names more functions Dynamo traces, by qualified name (``"Engine.step"``,
    ``"helper"``): they and what they reach are mended, as an entry point the text shows.
    ``suppressed_codes`` leaves the sites of those codes as written, as a
    ``# graphmend: ignore[...]`` comment on their line would (a linter's ignore list).
    ``skeleton`` also returns the result's skeleton and ``definitions`` its table of functions
    and classes (see ``MendResult``). Mending the result
    again changes nothing.
    """
    name = "<unknown>" if filename is None else filename
    raw = _core.mend_source(
        source_arg(source, name),
        name,
        version=check_version(version),
        rewrites=options.enabled(options.switches(rewrites, "mend_source")),
        trace_all=trace_all,
        only_lines=sorted({int(line) for line in only_lines or ()}),
        observed_lines=sorted({int(line) for line in observed_lines or ()}),
        entry_points=[str(name) for name in entry_points],
        suppressed_codes=list(suppressed_codes),
        skeleton=skeleton,
        definitions=definitions,
    )
    error = raw.get("error")
    return MendResult(
        source=raw["source"],
        changed=bool(raw["changed"]),
        diagnostics=tuple(_diagnostic(d, filename or "") for d in raw["diagnostics"]),
        line_map=tuple(raw["line_map"]),
        edits=tuple(tuple(e) for e in raw["edits"]),
        error=_diagnostic(error, filename or "") if error else None,
        skeleton=raw["skeleton"],
        stubbed_lines=tuple(raw["stubbed_lines"]),
        definitions=tuple(map(Definition._make, raw["definitions"])),
        pragmas=tuple(map(Pragma._make, raw["pragmas"])),
    )
