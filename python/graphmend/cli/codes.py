"""What each diagnostic code means, for people: its kebab-case name, the Dynamo graph-break
ids (GBxxxx) it corresponds to, what fixes it, and a hint per decline reason id.

The codes, the rewrite that fixes each (codes.def's Owner) and the reason ids with their
rewrites and hints (reasons.def) come from the core (``_core.CODES``, ``_core.FIXED_BY``,
``_core.REASONS``); this module only describes the codes. ``graphmend rule``, the SARIF rule
table and every finding's hint read it. tests/python/test_cli_codes.py checks it against the
core and against docs/DIAGNOSTICS.md, so the three cannot drift.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Tuple

from .. import _core

__all__ = [
    "Code",
    "CODES",
    "HINTS",
    "REASONS_BY_REWRITE",
    "DOCS_PAGE",
    "code_info",
    "hint_for",
    "codes_matching",
]

# Where the codes are documented, relative to the GraphMend repository.
DOCS_PAGE = "docs/DIAGNOSTICS.md"


@dataclasses.dataclass(frozen=True)
class Code:
    code: str
    name: str  # kebab-case, as Ruff names its rules
    summary: str  # the core's summary (codes.def)
    status_class: str  # error | break | out-of-scope | internal | note
    gb_ids: Tuple[str, ...]  # Dynamo's graph-break ids for this kind of site
    fixed_by: str  # the rewrite that fixes it (codes.def's Owner), or "" when none does
    description: str  # one paragraph: what it is
    hint: str = ""  # what the user can do about it (out-of-scope codes, errors)

    @property
    def url(self) -> str:
        """The code's section of DIAGNOSTICS.md (a GitHub-style heading anchor)."""
        anchor = "".join(
            c for c in f"{self.code} {self.heading}".lower() if c.isalnum() or c in " -"
        )
        return f"{DOCS_PAGE}#{anchor.replace(' ', '-')}"

    @property
    def heading(self) -> str:
        """The words after the code in DIAGNOSTICS.md's heading for it."""
        return _HEADINGS.get(self.code, self.summary)


_HEADINGS = {
    "GM102": "print",
    "GM104": "warnings.warn",
    "GM106": "Python scalar",
    "GM107": "data-dependent output shape (out of scope)",
    "GM108": "tensor slice bound (out of scope)",
}

_DESCRIPTIONS: Dict[str, Tuple[str, str, Tuple[str, ...], str, str]] = {
    # code: (name, status_class, gb_ids, description, hint)
    "GM001": (
        "syntax-error",
        "error",
        (),
        "The file does not parse (CPython's message and position). Nothing else is "
        "reported for it and it is never rewritten.",
        "fix the syntax error",
    ),
    "GM002": (
        "tokenize-error",
        "error",
        (),
        "The tokenizer rejects the file (an unterminated string, a bad character, an "
        "unmatched bracket).",
        "fix the syntax error",
    ),
    "GM003": (
        "indentation-error",
        "error",
        (),
        "IndentationError or TabError, as CPython raises them.",
        "fix the indentation",
    ),
    "GM004": (
        "encoding-error",
        "error",
        (),
        "The file is not valid in its declared encoding (UTF-8 by default) or contains a NUL byte.",
        "save the file as UTF-8 or declare its encoding",
    ),
    "GM101": (
        "data-dependent-branch",
        "break",
        ("GB0170", "GB0035"),
        "An if, elif, while or conditional expression whose condition depends on "
        "tensor data (a reduction such as sum/max/any, directly or through "
        "assignments). Dynamo needs the value on the host and breaks the graph. "
        "[Where] predicates both branches with torch.where (or torch.cond).",
        "",
    ),
    "GM102": (
        "print-call",
        "break",
        ("GB0059",),
        "A print call inside traced code. [Defer] records it and replays it at the "
        "compile boundary, in program order.",
        "",
    ),
    "GM103": (
        "logging-call",
        "break",
        ("GB0291",),
        "A logging.Logger method call inside traced code. [Defer] records it and "
        "replays it at the compile boundary.",
        "",
    ),
    "GM104": (
        "warnings-warn",
        "break",
        ("GB0007", "GB0008"),
        "A warnings.warn call inside traced code. [Defer] records it and replays it at "
        "the compile boundary, with the original call site.",
        "",
    ),
    "GM105": (
        "validation-guard",
        "break",
        ("GB0170",),
        '`if <tensor condition>: raise E("literal")`. [Trap] turns it into an '
        "in-graph check whose failure raises the same exception at the compile "
        "boundary.",
        "",
    ),
    "GM106": (
        "python-scalar",
        "break",
        ("GB0124", "GB0109"),
        ".item() or .tolist() on a tensor, or int()/float() of one, or a branch on "
        "such a value. [Scalar] holds a scalar assigned to a name and only compared "
        "with ints (tested with isinstance, read in the body of a guard) as a tensor "
        "while compiling; a .item() compared where a fixed condition reads it is "
        "compared in the graph with that fix. Others are declined.",
        "Dynamo captures it with torch._dynamo.config.capture_scalar_outputs = True",
    ),
    "GM107": (
        "data-dependent-shape",
        "break",
        ("GB0036", "GB0037"),
        "An operation whose output shape depends on tensor data (nonzero, unique, "
        "masked_select, boolean-mask indexing). [MaskedReduce] reduces a boolean-mask "
        "selection only reduced with sum, prod, any, all, count_nonzero, max or min "
        "densely where that is exact; the rest is reported, not rewritten.",
        "Dynamo captures it with torch._dynamo.config.capture_dynamic_output_shape_ops = True",
    ),
    "GM108": (
        "tensor-slice-bound",
        "out-of-scope",
        ("GB0038",),
        "A slice whose bound is a tensor (x[:n] with n = x.argmax()). Reported, not rewritten.",
        "compute the bound as a Python int outside the compiled region",
    ),
    "GM109": (
        "tensor-check",
        "break",
        ("GB0124",),
        "torch._check_tensor_all(cond) without a message callable: torch reads cond "
        "on the host. [Trap] makes it an in-graph assert raised at the boundary.",
        "",
    ),
    "GM110": (
        "tensor-assert",
        "break",
        (),
        "`assert <tensor condition>`: compiled code would raise RuntimeError where the "
        "program raises AssertionError. [Trap] keeps the AssertionError.",
        "",
    ),
    "GM190": (
        "unused-pragma",
        "note",
        (),
        "A `# graphmend: ignore[...]` or `# noqa: GM...` comment that suppressed no "
        'site. Off by default; select it with select = ["GM190"].',
        "remove the comment",
    ),
    "GM901": (
        "fix-does-not-parse",
        "internal",
        (),
        "A fix produced text that does not parse; the fix is not applied.",
        "please report this with the input that produced it",
    ),
    "GM902": (
        "fix-not-idempotent",
        "internal",
        (),
        "Mending the mended text would edit it again; the fix is not applied.",
        "please report this with the input that produced it",
    ),
}


def _build() -> Dict[str, Code]:
    table = {}
    for code, summary in _core.CODES:
        name, status_class, gb_ids, description, hint = _DESCRIPTIONS[code]
        fixed_by = _core.FIXED_BY.get(code, "")
        table[code] = Code(code, name, summary, status_class, gb_ids, fixed_by, description, hint)
    return table


CODES: Dict[str, Code] = _build()
_BY_NAME = {info.name: info for info in CODES.values()}

# Codes that are off unless selected by their full code (Ruff's preview/opt-in rules).
OPT_IN = ("GM190",)

# What the user can do, per decline reason id (src/diag/reasons.def).
HINTS: Dict[str, str] = {reason_id: hint for reason_id, _, hint in _core.REASONS}

# The reason ids each rewrite declines with (reasons.def's Owner), in the core's order.
REASONS_BY_REWRITE: Dict[str, Tuple[str, ...]] = {
    rewrite: tuple(reason_id for reason_id, owner, _ in _core.REASONS if owner == rewrite)
    for rewrite in _core.REWRITES
}


def code_info(code_or_name: str) -> Optional[Code]:
    """The Code for ``GM101`` or ``data-dependent-branch`` (case-insensitive code)."""
    return CODES.get(code_or_name.upper()) or _BY_NAME.get(code_or_name.lower())


def hint_for(code: str, reason_id: str) -> str:
    """The hint for a site: by its reason id when it was declined, else the code's own."""
    hint = HINTS.get(reason_id, "") if reason_id else ""
    info = CODES.get(code)
    return hint or (info.hint if info else "")


def codes_matching(prefix: str) -> Tuple[str, ...]:
    """The codes a selector names: a code prefix (``GM1``, ``GM10``, ``GM101``), a rule name
    (``print-call``) or ``ALL``. Opt-in codes match only their full code (or ``ALL``)."""
    if prefix.upper() == "ALL":
        return tuple(CODES)
    info = _BY_NAME.get(prefix.lower())
    if info is not None:
        return (info.code,)
    prefix = prefix.upper()
    return tuple(
        code for code in CODES if code.startswith(prefix) and (code not in OPT_IN or code == prefix)
    )
