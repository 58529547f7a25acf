"""The Finding: one diagnostic as every command shows it (text, JSON, SARIF, GitHub).

One location convention everywhere: 1-based lines and 1-based columns counted in
characters, as CPython's SyntaxError and Ruff count. The core's diagnostics carry 0-based
UTF-8 byte columns; ``TextIndex`` converts them.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import _core
from .codes import CODES, hint_for

__all__ = [
    "Finding",
    "TextIndex",
    "STATUSES",
    "finding_of",
    "unused_pragma_findings",
    "status_of",
    "without_pragmas",
]

# In the order the summary lists them.
STATUSES = ("fixable", "declined", "out-of-scope", "error", "internal", "note", "suppressed")

_LINE_BREAK = re.compile(rb"\r\n|\r|\n")
_NOT_REWRITTEN = "; not rewritten: "


class TextIndex:
    """Byte offsets and byte columns of a UTF-8 text as (line, character column), 1-based.
    Lines end at \\n, \\r\\n or \\r, as the core counts them."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._starts: Optional[List[int]] = None

    @property
    def starts(self) -> List[int]:
        """Where each line starts (found on first use: most files have no finding)."""
        if self._starts is None:
            self._starts = [0] + [match.end() for match in _LINE_BREAK.finditer(self.data)]
        return self._starts

    def column(self, line: int, byte_column: int) -> int:
        if not 1 <= line <= len(self.starts):
            return byte_column + 1
        start = self.starts[line - 1]
        return len(self.data[start : start + byte_column].decode("utf-8", "replace")) + 1

    def position(self, offset: int) -> Dict[str, int]:
        line = bisect.bisect_right(self.starts, offset)
        return {"line": line, "column": self.column(line, offset - self.starts[line - 1])}


@dataclasses.dataclass
class Finding:
    """One diagnostic. ``path`` uses ``/`` and is relative to the working directory when
    below it. ``start``/``end`` are ``{"line", "column"}`` (1-based, characters)."""

    code: str
    status: str
    path: str
    start: Dict[str, int]
    end: Dict[str, int]
    message: str
    reason: Optional[Dict[str, str]] = None  # {"id", "text"} for a declined site
    hint: str = ""
    rewrite: str = ""
    fix: Optional[Dict[str, Any]] = None
    suppressed_by: Optional[int] = None  # the pragma's line; 0: the configuration

    @property
    def name(self) -> str:
        info = CODES.get(self.code)
        return info.name if info else ""

    @property
    def gb_ids(self) -> Tuple[str, ...]:
        info = CODES.get(self.code)
        return info.gb_ids if info else ()

    @property
    def url(self) -> str:
        info = CODES.get(self.code)
        return info.url if info else ""

    def sort_key(self) -> tuple:
        return (self.path, self.start["line"], self.start["column"], self.code)

    def to_json(self) -> Dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "status": self.status,
            "path": self.path,
            "start": dict(self.start),
            "end": dict(self.end),
            "message": self.message,
            "reason": self.reason,
            "hint": self.hint or None,
            "rewrite": self.rewrite or None,
            "fix": self.fix,
            "gb_ids": list(self.gb_ids),
            "url": self.url,
            "suppressed_by": self.suppressed_by,
        }


# Sites left as written on purpose: by a pragma or the configuration, or GraphMend's own
# fallback in code it mended (the original, run where the mended form's check fails).
_SUPPRESSING_REASONS = ("suppressed", "predicated-fallback")


def status_of(d) -> str:
    """The status of a core diagnostic (``MendDiagnostic``)."""
    info = CODES.get(d.code)
    status_class = info.status_class if info else "internal"
    if status_class in ("break", "out-of-scope") and d.reason_id in _SUPPRESSING_REASONS:
        return "suppressed"
    if status_class == "break":
        return "fixable" if d.fixed else "declined"
    return status_class


def finding_of(
    d, path: str, index: TextIndex, edits: Sequence[Tuple[int, int, str]] = ()
) -> Finding:
    """The Finding of a core diagnostic of the text ``index`` was built from. ``edits`` are the
    core's edits that belong to this site (the fix of a fixable one)."""
    status = status_of(d)
    message = d.message
    reason = None
    if d.reason and message.endswith(_NOT_REWRITTEN + d.reason):
        message = message[: -len(_NOT_REWRITTEN + d.reason)]
    if status in ("declined", "suppressed") and d.reason:
        reason = {"id": d.reason_id, "text": d.reason}
    fix = None
    if status == "fixable" and edits:
        fix = {
            "applicability": "safe",
            "edits": [
                {"start": index.position(begin), "end": index.position(end), "content": text}
                for begin, end, text in edits
            ],
            "requires_runtime": "graphmend.runtime",
        }
    end_line = d.end_line or d.line
    return Finding(
        code=d.code,
        status=status,
        path=path,
        start={"line": d.line, "column": index.column(d.line, d.column)},
        end={"line": end_line, "column": index.column(end_line, d.end_column)},
        message=message,
        reason=reason,
        hint="" if status in ("fixable", "suppressed") else hint_for(d.code, d.reason_id),
        rewrite=d.rewrite,
        fix=fix,
        suppressed_by=d.suppressed_by if status == "suppressed" else None,
    )


def unused_pragma_findings(pragmas, path: str) -> List[Finding]:
    """GM190 for each suppression comment that suppressed nothing."""
    out = []
    for pragma in pragmas:
        if pragma.used:
            continue
        what = ", ".join(pragma.codes) if pragma.codes else "every code"
        kind = "ignore-file" if pragma.file_level else "ignore"
        position = {"line": pragma.line, "column": 1}
        out.append(
            Finding(
                code="GM190",
                status="note",
                path=path,
                start=position,
                end=dict(position),
                message=f"unused pragma: this {kind} comment ({what}) suppresses no site",
                hint=hint_for("GM190", ""),
            )
        )
    return out


def without_pragmas(text: str, pragmas) -> str:
    """``text`` with the suppression comments of ``pragmas`` taken out, as Ruff's RUF100
    takes out unused ``noqa`` comments: a ``graphmend: ignore`` comment goes whole; of a
    ``noqa:`` list only the GM codes go (the comment too when nothing is left); a line
    left blank by it goes. The core says where each comment, its suppression and each GM
    code of a ``noqa:`` list are written (``_core.pragmas``); here they are only cut."""
    lines = text.splitlines(keepends=True)
    wanted = {p.line for p in pragmas}
    written = {found[0]: found[1:] for found in _core.pragmas(text) if found[0] in wanted}
    for line in sorted(written, reverse=True):
        if line > len(lines):
            continue
        raw = lines[line - 1].encode("utf-8", "surrogatepass")
        noqa, comment, suppression, listed, codes = written[line]
        kept = _without_pragma(
            raw, comment, suppression, listed[0] if noqa else None, codes
        ).rstrip()
        start, end = comment
        before = raw[:start].decode("utf-8", "surrogatepass")
        after = raw[end:].decode("utf-8", "surrogatepass")
        if kept in ("", "#"):
            kept, before = "", before.rstrip(" \t")
        new = before + kept + after
        lines[line - 1] = "" if not new.strip() and lines[line - 1].strip() else new
    return "".join(lines)


def _without_pragma(raw: bytes, comment, suppression, listed: Optional[int], codes) -> str:
    """The comment at ``comment`` of the line ``raw`` without the ``suppression`` in it (byte
    columns): all of it; of a ``noqa:`` list that starts at ``listed`` and names other
    linters' codes too, only its GM ``codes``, the codes left joined as Ruff writes them."""

    def cut(begin: int, end: int) -> str:
        return raw[begin:end].decode("utf-8", "surrogatepass")

    (start, end), (begin, stop) = comment, suppression
    if listed is not None:
        bounds = [listed, *(column for code in codes for column in code), stop]
        others = (
            " ".join(cut(*pair) for pair in zip(bounds[::2], bounds[1::2]))
            .replace(",", " ")
            .split()
        )
        if others:
            return (
                cut(start, listed) + " " + ", ".join(others) + " " * (stop < end) + cut(stop, end)
            )
    return cut(start, begin) + cut(stop, end)
