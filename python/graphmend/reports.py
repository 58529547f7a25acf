"""The values GraphMend reports: break sites (``Diagnostic``), what ``mend`` did
(``MendNote``, ``MendReport``), what ``explain`` measured (``BreakInfo``, ``ExplainReport``)
and what runtime-aware ``compile`` decided (``CompileReport``). The import hook and the
object mender share them, so they live below both."""

from __future__ import annotations

import dataclasses
import os
from typing import Dict, Iterable, List, Optional, Tuple

__all__ = [
    "Diagnostic",
    "MendNote",
    "MendReport",
    "BreakInfo",
    "ExplainReport",
    "CompileReport",
    "diagnostic_of",
]


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One graph-break site (codes GM1xx, see docs/DIAGNOSTICS.md), a front-end error (GM00x)
    or an internal mender check (GM9xx): the one shape of a site, from ``mend_source`` (where
    it is also named ``MendDiagnostic``) to the reports of ``mend``, the import hook and
    ``explain``.

    Lines are 1-based and columns 0-based UTF-8 byte offsets, in the original source.
    ``fixed`` is True when the break was rewritten; otherwise ``message`` ends with
    ``"; not rewritten: <the safety condition that failed>"``, that condition is ``reason``
    and its stable id ``reason_id`` (``_core.REASON_IDS``, from src/diag/reasons.def).
    ``suppressed_by`` is the line of the pragma (``# graphmend: ignore[GM101]``) that left
    the site as written, or 0. ``rewrite`` names the rewrite that handles this kind of break
    (one of ``graphmend.options.REWRITES``, or "cond", the [Where] rewrite's ``torch.cond``
    form) or is "". ``filename`` is the file the text was mended as ("" when none was given).
    """

    code: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    fixed: bool
    rewrite: str
    reason: str = ""
    reason_id: str = ""
    suppressed_by: int = 0
    filename: str = ""

    def __str__(self) -> str:
        state = f"fixed ({self.rewrite})" if self.fixed else "not fixed"
        where = f"{self.filename}:" if self.filename else ""
        return f"{where}{self.line}:{self.column + 1}: {self.code} {state}: {self.message}"

    def fields(self) -> tuple:
        """Every field but ``filename``, as plain values (what the cache stores, per file)."""
        return dataclasses.astuple(self)[:-1]


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


def diagnostic_of(filename: str, fields: Iterable) -> Diagnostic:
    """The ``Diagnostic`` of ``filename`` from another one, or from its ``fields()`` (a tuple
    as the cache stores it)."""
    d = fields if isinstance(fields, Diagnostic) else Diagnostic(*fields)
    return dataclasses.replace(d, end_line=d.end_line or d.line, filename=filename)


@dataclasses.dataclass(frozen=True)
class BreakInfo:
    """One graph break Dynamo reported: where (the innermost user frame), Dynamo's reason
    and, when ``mend_source`` tagged that line, GraphMend's code and what became of it.
    ``runtime_frame`` names the ``graphmend.runtime`` function the break happened in ("" for
    none): GraphMend's own eager fallback, such as a trap's guard run eagerly. ``framework``
    names the framework whose code the break is in or under ("FSDP2 hooks", "DDP"; "" for
    the program's own): a break by the framework's design, which no rewrite removes."""

    filename: str
    line: int
    reason: str
    code: str = ""
    fixed: Optional[bool] = None
    message: str = ""
    runtime_frame: str = ""
    framework: str = ""

    def __str__(self) -> str:
        where = f"{os.path.basename(self.filename)}:{self.line}" if self.filename else "?"
        tag = f" [{self.code}]" if self.code else ""
        owner = f" (the framework's: {self.framework})" if self.framework else ""
        return f"{where}{tag} {self.reason}{owner}"


# Dynamo's reason for a break on a branch on a tensor (a data-dependent jump): GB0170
# "Data-dependent branching", whose first reason line ("generic_jump TensorVariable()")
# carries no registered graph-break type, and GB0035 (a tensor's __bool__), whose type
# starts with the same words.
GENERIC_JUMP = "generic_jump"
GENERIC_JUMP_ID = "GB0170"
JUMP_SIGNS = (GENERIC_JUMP, "Data-dependent branching")
# Dynamo's words for a break on an operator of data-dependent output shape (`x[mask]`): a
# boolean-mask index there is a mask, whatever the text shows (the tagger's observed lines).
SHAPE_SIGNS = ("Dynamic shape operator",)
# Dynamo's words for a break on a scalar read (`.item()`, `int(t)`): the read's operand is a
# tensor, whatever the text shows.
SCALAR_SIGNS = ("Unsupported Tensor.item() call",)


@dataclasses.dataclass
class ExplainReport:
    """What ``explain`` measured: graphs, breaks and one ``BreakInfo`` per break."""

    graph_count: int
    graph_break_count: int
    breaks: List[BreakInfo]
    op_count: int = 0

    def __str__(self) -> str:
        # The breaks listed, not Dynamo's graph_break_count (graphs - 1), which misses breaks
        # that leave no graph behind (docs/MENDER.md).
        lines = [
            f"{len(self.breaks)} break(s) in {self.graph_count} graph(s), {self.op_count} op(s)"
        ]
        for i, info in enumerate(self.breaks, 1):
            lines.append(f"  {i}. {info}")
            if info.message:
                lines.append(f"     graphmend: {info.message}")
        return "\n".join(lines)


@dataclasses.dataclass
class CompileReport:
    """What runtime-aware ``graphmend.compile`` measured and decided.

    ``breaks_before``: Dynamo's breaks in the original program on the example inputs;
    ``breaks_after``: those of what the compiled object runs (mended, with the capture
    options enabled). ``mend`` is the ``MendReport`` of the line-filtered mending (``mended``
    lists the sites rewritten; sites Dynamo did not break on are declined). ``capture_options``
    maps each enabled Dynamo option to True, ``capture_reasons`` maps it to the breaks that
    called for it, and ``rejected`` maps each option called for but not enabled to why.
    ``rounds`` is how many times it mended (each round with the break lines of every run
    before it; another round when the last run broke on a new line, at most 3),
    ``dropped_rounds`` says why a round's program was not kept, and ``model_calls`` is how
    many times the model was called while compiling (profiling runs, option trials).

    Without example inputs (``evidence`` "first call", "pending" until then) the first call
    is the evidence run: ``breaks_before`` (and ``breaks_after``) are Dynamo's breaks on it
    (of the program mended from its text; a frame it skipped after a break in a loop counts
    each of its breaks, and ``frames_skipped`` counts the frames), ``first_call_graphs`` its
    graphs; ``from_text`` lists the sites mended from the text alone, ``from_runtime`` those
    mended because Dynamo broke there (``observed_lines``: the lines of branches it broke on
    that no site of the text covered), and ``recompiled`` says whether the later calls run
    that second mend. ``remembered_lines`` are the jump lines an earlier process's first
    call found, kept in the cache folder while the files they name are unchanged: the
    program is mended with them from the start, so the first call needs no second mend."""

    breaks_before: List[BreakInfo]
    breaks_after: List[BreakInfo]
    mend: MendReport
    capture_options: Dict[str, bool] = dataclasses.field(default_factory=dict)
    capture_reasons: Dict[str, List[BreakInfo]] = dataclasses.field(default_factory=dict)
    rejected: Dict[str, str] = dataclasses.field(default_factory=dict)
    rounds: int = 0
    dropped_rounds: List[str] = dataclasses.field(default_factory=list)
    model_calls: int = 0
    evidence: str = "example inputs"
    from_text: List[Diagnostic] = dataclasses.field(default_factory=list)
    from_runtime: List[Diagnostic] = dataclasses.field(default_factory=list)
    observed_lines: Dict[str, Tuple[int, ...]] = dataclasses.field(default_factory=dict)
    remembered_lines: Dict[str, Tuple[int, ...]] = dataclasses.field(default_factory=dict)
    first_call_graphs: Optional[int] = None
    frames_skipped: int = 0
    recompiled: bool = False

    @property
    def mended(self) -> List[Diagnostic]:
        return self.mend.fixed

    def __str__(self) -> str:
        if self.evidence != "example inputs":
            return self._evidence_text()
        lines = [
            f"graphmend.compile: {len(self.breaks_before)} break(s) in the profiling run, "
            f"{len(self.breaks_after)} left; {len(self.mended)} site(s) mended in "
            f"{self.rounds} round(s), {self.model_calls} call(s) of the model"
        ]
        lines += [f"  mended {d.filename}:{d.line} {d.code}" for d in self.mended]
        lines += [f"  dropped {why}" for why in self.dropped_rounds]
        for option, breaks in self.capture_reasons.items():
            sites = ", ".join(str(b) for b in breaks)
            lines.append(f"  enabled torch._dynamo.config.{option} for: {sites}")
        lines += [f"  not enabled {o}: {why}" for o, why in self.rejected.items()]
        lines += [f"  left: {b}" for b in self.breaks_after]
        return "\n".join(lines)

    def _evidence_text(self) -> str:
        """The report of ``graphmend.compile`` without example inputs: the sites mended from
        the text, then those mended from Dynamo's evidence of the first call."""
        if self.evidence == "pending":
            head = "graphmend.compile: evidence pending (the first call records it)"
        else:
            skipped = f", {self.frames_skipped} frame(s) skipped" if self.frames_skipped else ""
            head = (
                f"graphmend.compile: evidence from the {self.evidence}: "
                f"{self.first_call_graphs} graph(s), {len(self.breaks_before)} break(s)"
                f"{skipped}; {len(self.from_text)} site(s) mended from the text, "
                f"{len(self.from_runtime)} from the evidence"
                + ("" if self.recompiled else " (no recompile)")
            )
        lines = [head]
        lines += [f"  from the text {d.filename}:{d.line} {d.code}" for d in self.from_text]
        lines += [f"  from the evidence {d.filename}:{d.line} {d.code}" for d in self.from_runtime]
        lines += [
            f"  remembered from an earlier run {f}:{n}"
            for f, ns in self.remembered_lines.items()
            for n in ns
        ]
        lines += [f"  dropped {why}" for why in self.dropped_rounds]
        lines += [f"  broke: {b}" for b in self.breaks_before]
        return "\n".join(lines)
