"""Renderings of Findings: text (for people), json (schema/report-v1.json), sarif (SARIF
2.1.0, for code scanning) and github (workflow commands that annotate a pull request). All
are projections of the same records (findings.py)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any, Dict, Iterable, List, Optional, Sequence

from .._version import __version__
from .codes import CODES
from .findings import STATUSES, Finding

__all__ = ["FORMATS", "Style", "render", "summary_counts", "summary_line", "tool_info"]

FORMATS = ("text", "json", "sarif", "github")
SCHEMA_VERSION = 1


class Style:
    """ANSI colour for text output: on for a TTY unless NO_COLOR is set, FORCE_COLOR forces it,
    ``--color always|never`` decides outright. Machine formats are never coloured."""

    _CODES = {"bold": "1", "dim": "2", "red": "31", "yellow": "33", "cyan": "36"}

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    @classmethod
    def for_stream(cls, stream, choice: str = "auto") -> "Style":
        if choice != "auto":
            return cls(choice == "always")
        if os.environ.get("NO_COLOR"):
            return cls(False)
        if os.environ.get("FORCE_COLOR"):
            return cls(True)
        return cls(bool(getattr(stream, "isatty", lambda: False)()))

    def __call__(self, text: str, *names: str) -> str:
        if not self.enabled or not names:
            return text
        start = "".join(f"\x1b[{self._CODES[name]}m" for name in names)
        return f"{start}{text}\x1b[0m"


_STATUS_COLOUR = {
    "fixable": ("yellow",),
    "declined": (),
    "out-of-scope": ("dim",),
    "error": ("red",),
    "internal": ("red",),
    "note": ("cyan",),
    "suppressed": ("dim",),
}


def tool_info() -> Dict[str, str]:
    from ..cache import build_id

    return {"name": "graphmend", "version": __version__, "core": build_id()[:12]}


def summary_counts(findings: Iterable[Finding]) -> Dict[str, int]:
    counts = {status: 0 for status in STATUSES}
    for finding in findings:
        counts[finding.status] += 1
    return counts


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(findings: Sequence[Finding], files: int, command: str = "check") -> str:
    counts = summary_counts(findings)
    shown = sum(counts.values()) - counts["suppressed"]
    if not shown:
        return f"No break sites found in {_plural(files, 'file')}."
    parts = []
    labels = {
        "fixable": "fixable" + (" (run `graphmend fix`)" if command == "check" else ""),
        "declined": "declined",
        "out-of-scope": "out of scope",
        "error": "with errors",
        "internal": "internal errors (please report)",
        "note": "notes",
        "suppressed": "suppressed",
    }
    for status in STATUSES:
        if counts[status]:
            parts.append(f"{counts[status]} {labels[status]}")
    noun = "break site" if shown == 1 else "break sites"
    return f"Found {shown} {noun} in {_plural(files, 'file')}: {', '.join(parts)}."


# ---------------------------------------------------------------------------------------------
# text


def _status_label(finding: Finding) -> str:
    if finding.status == "fixable" and finding.rewrite:
        return f"fixable: {finding.rewrite}"
    if finding.status == "suppressed" and finding.suppressed_by:
        return f"suppressed by line {finding.suppressed_by}"
    return finding.status.replace("-", " ")


def text_lines(finding: Finding, style: Style, source_line: Optional[str] = None) -> List[str]:
    where = f"{finding.path}:{finding.start['line']}:{finding.start['column']}:"
    colour = _STATUS_COLOUR[finding.status]
    lines = [
        f"{style(where, 'bold')} {style(finding.code, *colour)} {finding.message} "
        f"{style('[' + _status_label(finding) + ']', *colour)}"
    ]
    if source_line is not None:
        start = finding.start["column"]
        width = (
            max(1, finding.end["column"] - start)
            if finding.end["line"] == finding.start["line"]
            else 1
        )
        lines.append(f"    {source_line}")
        lines.append(f"    {' ' * (start - 1)}{style('^' * width, *colour)}")
    # Why a site was left: declined, or suppressed by anything but a pragma (whose line the
    # label gives): the configuration, or GraphMend's own fallback in code it mended.
    if finding.reason and (
        finding.status == "declined"
        or (finding.status == "suppressed" and not finding.suppressed_by)
    ):
        lines.append(f"  why: {finding.reason['text']}")
    if finding.hint:
        lines.append(f"  {style('hint:', 'cyan')} {finding.hint}")
    return lines


# ---------------------------------------------------------------------------------------------
# json


def json_report(
    command: str, findings: Sequence[Finding], files: Dict[str, int], **extra: Any
) -> Dict[str, Any]:
    report = {
        "schema": "graphmend-report",
        "version": SCHEMA_VERSION,
        "tool": tool_info(),
        "command": command,
        "findings": [finding.to_json() for finding in findings],
        "files": files,
        "summary": summary_counts(findings),
    }
    report.update(extra)
    return report


# ---------------------------------------------------------------------------------------------
# sarif

_SARIF_LEVEL = {
    "fixable": "warning",
    "declined": "warning",
    "out-of-scope": "note",
    "error": "error",
    "internal": "error",
    "note": "note",
    "suppressed": "note",
}


def _sarif_region(start: Dict[str, int], end: Dict[str, int]) -> Dict[str, int]:
    return {
        "startLine": start["line"],
        "startColumn": start["column"],
        "endLine": end["line"],
        "endColumn": end["column"],
    }


def _sarif_result(finding: Finding) -> Dict[str, Any]:
    text = finding.message
    if finding.reason and finding.status == "declined":
        text += f" (not rewritten: {finding.reason['text']})"
    location = {
        "physicalLocation": {
            "artifactLocation": {"uri": finding.path, "uriBaseId": "%SRCROOT%"},
            "region": _sarif_region(finding.start, finding.end),
        }
    }
    result: Dict[str, Any] = {
        "ruleId": finding.code,
        "level": _SARIF_LEVEL[finding.status],
        "message": {"text": text},
        "locations": [location],
        "properties": {"status": finding.status},
    }
    if finding.fix:
        replacements = [
            {
                "deletedRegion": _sarif_region(edit["start"], edit["end"]),
                "insertedContent": {"text": edit["content"]},
            }
            for edit in finding.fix["edits"]
        ]
        result["fixes"] = [
            {
                "description": {"text": f"rewrite with [{finding.rewrite}]"},
                "artifactChanges": [
                    {
                        "artifactLocation": location["physicalLocation"]["artifactLocation"],
                        "replacements": replacements,
                    }
                ],
            }
        ]
    if finding.status == "suppressed":
        result["suppressions"] = [{"kind": "inSource" if finding.suppressed_by else "external"}]
    return result


def sarif_report(findings: Sequence[Finding]) -> Dict[str, Any]:
    rules = [
        {
            "id": info.code,
            "name": info.name,
            "shortDescription": {"text": info.summary},
            "fullDescription": {"text": info.description},
            "help": {"text": f"{info.description} See {info.url} in the GraphMend repository."},
        }
        for info in CODES.values()
    ]
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "GraphMend",
                        "version": __version__,
                        "informationUri": "https://pypi.org/project/graphmend/",
                        "rules": rules,
                    }
                },
                "results": [_sarif_result(finding) for finding in findings],
            }
        ],
    }


# ---------------------------------------------------------------------------------------------
# github


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(finding: Finding) -> str:
    level = "error" if finding.status in ("error", "internal") else "warning"
    properties = ",".join(
        f"{key}={_escape_property(str(value))}"
        for key, value in (
            ("file", finding.path),
            ("line", finding.start["line"]),
            ("col", finding.start["column"]),
            ("endLine", finding.end["line"]),
            ("endColumn", finding.end["column"]),
            ("title", f"{finding.code} {finding.name}"),
        )
    )
    text = finding.message
    if finding.reason and finding.status == "declined":
        text += f" (not rewritten: {finding.reason['text']})"
    return f"::{level} {properties}::{_escape_data(text)}"


# ---------------------------------------------------------------------------------------------


def render(
    output_format: str,
    command: str,
    findings: Sequence[Finding],
    files: Dict[str, int],
    stream=None,
    **extra: Any,
) -> None:
    """Writes the machine formats (json, sarif, github) of ``findings`` to ``stream``."""
    stream = stream or sys.stdout
    if output_format == "json":
        json.dump(
            json_report(command, findings, files, **extra), stream, indent=2, ensure_ascii=False
        )
        stream.write("\n")
    elif output_format == "sarif":
        json.dump(sarif_report(findings), stream, indent=2, ensure_ascii=False)
        stream.write("\n")
    elif output_format == "github":
        for finding in findings:
            stream.write(github_line(finding) + "\n")
    else:
        raise ValueError(f"not a machine format: {output_format}")
