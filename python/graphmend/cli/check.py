"""``graphmend check``, ``graphmend fix`` and ``graphmend rule``: the static commands. They
read files and ask the core; they never import torch or the user's code.

Each file goes through ``lint_file`` (read, mend with the file's selection, turn the
diagnostics into Findings, and for ``fix`` check that the mended text is safe to write);
files run on threads, as the core releases the GIL while it mends.
"""

from __future__ import annotations

import argparse
import bisect
import concurrent.futures
import dataclasses
import difflib
import io
import json
import os
import sys
from typing import Dict, List, Optional, Sequence, Tuple

from .. import _core, _mend_source
from .._source import check_version, decode_source
from ..files import (
    SourceFile,
    UserError,
    display_path,
    glob_matches,
    lines_with_ends,
    python_files,
    read_source,
    relative_to,
    write_atomic,
)
from . import formats
from .codes import CODES, HINTS, REASONS_BY_REWRITE, code_info
from .config import Settings
from .findings import Finding, TextIndex, finding_of, unused_pragma_findings, without_pragmas

__all__ = ["FileOutcome", "lint_file", "lint_paths", "check", "fix", "rule", "exit_status"]

# Statuses that fail the run under each --fail-on policy.
FAILING = {
    "fixable": {"fixable", "error", "internal", "note"},
    "any": {"fixable", "declined", "out-of-scope", "error", "internal", "note"},
    "never": set(),
}
# The codes a configuration can suppress in the core (breaks; errors are always reported).
_SUPPRESSIBLE = tuple(
    c for c, info in CODES.items() if info.status_class in ("break", "out-of-scope")
)


@dataclasses.dataclass
class FileOutcome:
    """One file's findings and, for ``fix``, its safe mended text (None: nothing to write)."""

    path: str  # as displayed
    findings: List[Finding] = dataclasses.field(default_factory=list)
    source: Optional[SourceFile] = None
    mended: Optional[str] = None
    fixed: int = 0  # sites the mended text fixes
    problem: str = ""  # the file could not be read (exit 2)
    refused: bool = False  # a fix was not safe to write (exit 2)


# ---------------------------------------------------------------------------------------------
# One file.


def _site_edits(result, index: TextIndex) -> Dict[int, list]:
    """The core's edits of a file, as ``(begin, end, text)`` byte ranges, distributed to its
    fixed sites: each edit to the last fixed site starting on or before its line (the
    runtime import, before every site, to the first). Applying every site's edits gives the
    file ``fix`` writes."""
    fixed = sorted(
        (d.line, i)
        for i, d in enumerate(result.diagnostics)
        if d.fixed and d.code.startswith("GM1")
    )
    owners: Dict[int, list] = {i: [] for _, i in fixed}
    lines = [line for line, _ in fixed]
    for begin, end, text in result.edits if fixed else ():
        k = max(bisect.bisect_right(lines, index.position(begin)["line"]) - 1, 0)
        owners[fixed[k][1]].append((begin, end, text))
    return owners


def _error_outcome(
    display: str, source: Optional[SourceFile], code: str, message: str
) -> FileOutcome:
    position = {"line": 1, "column": 1}
    finding = Finding(
        code, "error", display, position, dict(position), message, hint=CODES[code].hint
    )
    return FileOutcome(display, [finding], source)


def lint_file(
    path: str,
    settings: Settings,
    *,
    fix: bool = False,
    data: Optional[bytes] = None,
    display: Optional[str] = None,
    trace_all: Optional[bool] = None,
    show_suppressed: bool = False,
) -> FileOutcome:
    display = display or display_path(path)
    try:
        source = read_source(path, data)
    except OSError as exc:
        return FileOutcome(display, problem=f"cannot read: {exc.strerror or exc}")
    if source.text is None:
        return _error_outcome(
            display, source, "GM004", f"cannot decode the file: {source.decode_error}"
        )
    relative = relative_to(path if path != "-" else display, settings.root)
    selected = settings.selected_codes(relative)

    def mend(text: str):
        return _mend_source.mend_source(
            text,
            display,
            version=settings.target_version,
            trace_all=settings.traces_all(relative) if trace_all is None else trace_all,
            entry_points=settings.entry_points_in(relative),
            suppressed_codes=[code for code in _SUPPRESSIBLE if code not in selected],
            **settings.rewrites,
        )

    result = mend(source.text)
    text = source.text
    unused = [p for p in result.pragmas if not p.used] if "GM190" in selected else []
    removed = 0
    if fix and unused and result.error is None:
        # fix takes unused suppression comments out (GM190 selected), as Ruff's RUF100 does;
        # they suppressed nothing, so mending the text without them mends the same sites
        text = without_pragmas(source.text, unused)
        result, removed, unused = mend(text), len(unused), []
    outcome = FileOutcome(display, source=source)
    encoded = text.encode("utf-8", "surrogatepass")
    index = TextIndex(encoded)
    owners = _site_edits(result, index)
    for i, d in enumerate(result.diagnostics):
        finding = finding_of(d, display, index, owners.get(i, ()))
        if d.code not in selected:
            continue
        if finding.status != "suppressed" or show_suppressed:
            outcome.findings.append(finding)
    if unused and result.error is None:
        outcome.findings += unused_pragma_findings(unused, display)
    outcome.fixed = sum(1 for d in result.diagnostics if d.fixed and d.code in selected)
    outcome.fixed += removed
    mended = result.source if result.changed else text
    if fix and mended != source.text and result.error is None:
        problem = _unsafe(mended, source, settings, display, selected)
        if problem:
            outcome.refused = True
            outcome.findings.append(_refused(display, problem))
        else:
            outcome.mended = mended
    return outcome


def _refused(display: str, problem: str) -> Finding:
    position = {"line": 1, "column": 1}
    return Finding(
        "GM901",
        "internal",
        display,
        position,
        dict(position),
        f"the fix was not written: {problem}",
        hint=CODES["GM901"].hint,
    )


def _unsafe(mended: str, source: SourceFile, settings: Settings, display: str, selected) -> str:
    """Why the mended text must not be written ("" when it may): it must parse for GraphMend
    and for CPython, encode in the file's encoding and decode back to itself, and mend to
    itself."""
    try:
        _core.parse_check(mended, display, version=check_version(settings.target_version))
        compile(mended, display, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        return f"the mended text does not parse ({exc})"
    try:
        data = source.encode(mended)
    except UnicodeEncodeError as exc:
        return f"the mended text cannot be written in the file's encoding {source.encoding} ({exc.reason})"
    try:
        back = decode_source(data, display).decode("utf-8", "surrogatepass")
    except (SyntaxError, UnicodeDecodeError) as exc:
        return f"the written file would not decode ({exc})"
    if back != mended:
        return "the written file would not read back as the mended text"
    again = _mend_source.mend_source(
        mended,
        display,
        version=settings.target_version,
        suppressed_codes=[code for code in _SUPPRESSIBLE if code not in selected],
        **settings.rewrites,
    )
    if again.changed:
        return "mending the mended text changes it again"
    return ""


# ---------------------------------------------------------------------------------------------
# Many files.


def _excluder(settings: Settings):
    patterns = settings.exclude

    def excluded(path: str) -> bool:
        return bool(patterns) and glob_matches(relative_to(path, settings.root), patterns)

    return excluded


def lint_paths(
    paths: Sequence[str],
    settings: Settings,
    *,
    fix: bool = False,
    jobs: Optional[int] = None,
    force_exclude: bool = False,
    trace_all: Optional[bool] = None,
    show_suppressed: bool = False,
) -> List[FileOutcome]:
    """The outcomes of every Python file of ``paths``, sorted by path. Raises UserError."""
    files = list(
        dict.fromkeys(python_files(paths, _excluder(settings), force_exclude=force_exclude))
    )

    def one(path: str) -> FileOutcome:
        return lint_file(
            path,
            settings,
            fix=fix,
            display=display_path(path),
            trace_all=trace_all,
            show_suppressed=show_suppressed,
        )

    jobs = max(1, min(jobs or os.cpu_count() or 1, len(files) or 1))
    if jobs == 1:
        outcomes = [one(path) for path in files]
    else:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            outcomes = list(pool.map(one, files))
    return sorted(outcomes, key=lambda o: o.path)


def _stdin_outcome(options, settings: Settings, fix: bool) -> FileOutcome:
    data = sys.stdin.buffer.read()
    display = options.stdin_filename or "-"
    return lint_file(
        "-",
        settings,
        fix=fix,
        data=data,
        display=display,
        trace_all=options.trace_all,
        show_suppressed=options.show_suppressed,
    )


def _outcomes(options, settings: Settings, fix: bool) -> List[FileOutcome]:
    if options.paths == ["-"]:
        return [_stdin_outcome(options, settings, fix)]
    return lint_paths(
        options.paths or ["."],
        settings,
        fix=fix,
        jobs=options.jobs,
        force_exclude=options.force_exclude,
        trace_all=options.trace_all,
        show_suppressed=options.show_suppressed,
    )


def exit_status(findings: Sequence[Finding], policy: str, *, problems: bool = False) -> int:
    if problems:
        return 2
    failing = FAILING[policy]
    return 1 if any(f.status in failing for f in findings) else 0


def _all_findings(outcomes: Sequence[FileOutcome]) -> List[Finding]:
    return sorted((f for o in outcomes for f in o.findings), key=Finding.sort_key)


def _report_problems(outcomes: Sequence[FileOutcome], command: str) -> bool:
    problems = [o for o in outcomes if o.problem]
    for outcome in problems:
        sys.stderr.write(f"graphmend {command}: {outcome.problem} ({outcome.path})\n")
    return bool(problems) or any(o.refused for o in outcomes)


# ---------------------------------------------------------------------------------------------
# Output.


def _source_lines(outcomes: Sequence[FileOutcome]) -> Dict[str, List[str]]:
    return {
        o.path: [line.rstrip("\r\n") for line in lines_with_ends(o.source.text)]
        for o in outcomes
        if o.source is not None and o.source.text is not None
    }


def _print_text(findings, outcomes, options, stream, style) -> None:
    sources = _source_lines(outcomes) if options.show_source else {}
    for finding in findings:
        line = None
        if options.show_source:
            lines = sources.get(finding.path, [])
            index = finding.start["line"] - 1
            line = lines[index] if 0 <= index < len(lines) else ""
        for text in formats.text_lines(finding, style, line):
            stream.write(text + "\n")


def _statistics(findings: Sequence[Finding], stream) -> None:
    counts: Dict[Tuple[str, str], int] = {}
    for finding in findings:
        counts[(finding.code, finding.status)] = counts.get((finding.code, finding.status), 0) + 1
    for (code, status), count in sorted(counts.items()):
        stream.write(f"{count:6d}  {code}  {CODES[code].name:24s} {status}\n")


def _emit(
    command: str,
    findings,
    outcomes,
    options,
    settings,
    *,
    stream=None,
    summary: bool = True,
    **extra,
) -> None:
    """Findings in the chosen format, and the summary (stdout for text, stderr otherwise)."""
    output_format = options.output_format or settings.output_format
    files = {
        "checked": len(outcomes),
        "changed": sum(1 for o in outcomes if o.mended is not None),
        "errors": sum(
            1 for o in outcomes if o.problem or any(f.status == "error" for f in o.findings)
        ),
    }
    out = stream or sys.stdout
    handle = None
    if options.output_file:
        handle = open(options.output_file, "w", encoding="utf-8")
        out = handle
    try:
        if output_format == "text":
            style = formats.Style.for_stream(out, options.color)
            if options.statistics:
                _statistics(findings, out)
            else:
                _print_text(findings, outcomes, options, out, style)
            if summary and not options.quiet:
                out.write(formats.summary_line(findings, len(outcomes), command) + "\n")
        else:
            formats.render(output_format, command, findings, files, out, **extra)
            if summary and not options.quiet:
                sys.stderr.write(formats.summary_line(findings, len(outcomes), command) + "\n")
    finally:
        if handle is not None:
            handle.close()


# ---------------------------------------------------------------------------------------------
# The commands.


def check(options: argparse.Namespace, settings: Settings) -> int:
    outcomes = _outcomes(options, settings, fix=False)
    problems = _report_problems(outcomes, "check")
    findings = _all_findings(outcomes)
    _emit("check", findings, outcomes, options, settings)
    status = exit_status(findings, options.fail_on or settings.fail_on, problems=problems)
    return 0 if options.exit_zero and status == 1 else status


def _diff(outcome: FileOutcome) -> str:
    path = outcome.path
    old = lines_with_ends(outcome.source.text)
    new = lines_with_ends(outcome.mended)
    lines = []
    for line in difflib.unified_diff(old, new, f"a/{path}", f"b/{path}"):
        if not line.endswith(("\n", "\r")):  # the file's last line has no line break
            line += "\n\\ No newline at end of file\n"
        lines.append(line)
    return "".join(lines)


def _runtime_note() -> None:
    from .config import project_depends_on_graphmend

    if not project_depends_on_graphmend():
        sys.stderr.write(
            'note: fixed files import graphmend.runtime; add "graphmend" to your project\'s '
            'runtime dependencies (see docs/CLI.md, "What a fixed file needs")\n'
        )


def fix(options: argparse.Namespace, settings: Settings) -> int:
    outcomes = _outcomes(options, settings, fix=True)
    problems = _report_problems(outcomes, "fix")
    changed = [o for o in outcomes if o.mended is not None]
    policy = options.fail_on or settings.fail_on
    # What stays after the fixes: everything but the fixable sites.
    remaining = [f for f in _all_findings(outcomes) if f.status != "fixable"]
    fixed_sites = sum(o.fixed for o in changed)

    if options.stdout or options.paths == ["-"]:
        if len(outcomes) != 1:
            raise UserError("--stdout takes exactly one file")
        only = outcomes[0]
        text = (
            only.mended
            if only.mended is not None
            else (only.source.text if only.source and only.source.text is not None else "")
        )
        sys.stdout.write(text)
        _emit("fix", remaining, outcomes, options, settings, stream=sys.stderr, summary=False)
        _fix_summary("The mended text fixes", fixed_sites, None, remaining, options, sys.stderr)
        return _fix_status(remaining, policy, problems, options, bool(changed))

    if options.diff:
        for outcome in changed:
            sys.stdout.write(_diff(outcome))
        _emit("fix", remaining, outcomes, options, settings, stream=sys.stderr, summary=False)
        _fix_summary("The diff fixes", fixed_sites, len(changed), remaining, options, sys.stderr)
        return 2 if problems else (1 if changed else exit_status(remaining, policy))

    if options.check:
        if not options.quiet:
            print(
                f"would fix {fixed_sites} site{'s' if fixed_sites != 1 else ''} in "
                f"{len(changed)} file{'s' if len(changed) != 1 else ''}"
            )
        return 2 if problems else (1 if changed else exit_status(remaining, policy))

    written = 0
    for outcome in changed:
        try:
            write_atomic(outcome.source.path, outcome.source.encode(outcome.mended))
            written += 1
        except OSError as exc:
            problems = True
            sys.stderr.write(
                f"graphmend fix: cannot write: {exc.strerror or exc} ({outcome.path})\n"
            )
    _emit("fix", remaining, outcomes, options, settings, summary=False)
    _fix_summary("Fixed", fixed_sites, written, remaining, options, sys.stdout)
    if written:
        _runtime_note()
    return _fix_status(remaining, policy, problems, options, bool(written))


def _fix_summary(what: str, sites: int, files: Optional[int], remaining, options, stream) -> None:
    """``<what> N sites in M files; D declined, O out of scope remain.`` (no files: one text)."""
    if options.quiet:
        return
    counts = formats.summary_counts(remaining)
    where = "" if files is None else f" in {files} file{'s' if files != 1 else ''}"
    stream.write(
        f"{what} {sites} site{'s' if sites != 1 else ''}{where}; "
        f"{counts['declined']} declined, {counts['out-of-scope']} out of scope remain.\n"
    )


def _fix_status(remaining, policy, problems, options, changed: bool) -> int:
    if problems:
        return 2
    if options.exit_non_zero_on_fix and changed:
        return 1
    status = exit_status(remaining, policy)
    return 0 if options.exit_zero and status == 1 else status


def rule(options: argparse.Namespace) -> int:
    if options.all or not options.code:
        infos = list(CODES.values())
    else:
        info = code_info(options.code)
        if info is None:
            raise UserError(f"unknown code {options.code!r}; `graphmend rule --all` lists them")
        infos = [info]
    if options.output_format == "json":
        payload = [
            {
                "code": i.code,
                "name": i.name,
                "summary": i.summary,
                "status_class": i.status_class,
                "gb_ids": list(i.gb_ids),
                "fixed_by": i.fixed_by or None,
                "url": i.url,
            }
            for i in infos
        ]
        json.dump(payload if options.all or not options.code else payload[0], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if options.all or not options.code:
        for i in infos:
            print(f"{i.code}  {i.name:24s} {i.summary}")
        return 0
    sys.stdout.write(_rule_text(infos[0]))
    return 0


def _rule_text(info) -> str:
    out = io.StringIO()
    out.write(f"{info.code} {info.name}: {info.summary}\n\n{info.description}\n\n")
    if info.gb_ids:
        out.write(f"Dynamo graph-break ids: {', '.join(info.gb_ids)}\n")
    out.write(
        f"Fixed by: [{info.fixed_by}]\n" if info.fixed_by else "Fixed by: nothing (reported only)\n"
    )
    if info.hint:
        out.write(f"What to do: {info.hint}\n")
    if info.fixed_by:
        out.write("\nWhen a site is declined, the reason id says why; the hints:\n")
        for reason_id in REASONS_BY_REWRITE.get(info.fixed_by, ()):
            if HINTS.get(reason_id):
                out.write(f"  {reason_id}: {HINTS[reason_id]}\n")
    out.write(f"\nSuppress one site with `# graphmend: ignore[{info.code}]` on its first line.\n")
    out.write(f"Docs: {info.url} (in the GraphMend repository)\n")
    return out.getvalue()
