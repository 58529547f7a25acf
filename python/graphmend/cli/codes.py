"""What each diagnostic code means, for people: its kebab-case name, the Dynamo graph-break
ids (GBxxxx) it corresponds to, what fixes it, and a hint per decline reason id.

The codes themselves and the reason ids come from the core (``_core.CODES``,
``_core.REASON_IDS``); this module only describes them. ``graphmend rule``, the SARIF rule
table and every finding's hint read it. tests/python/test_cli_codes.py checks it against the
core and against docs/DIAGNOSTICS.md, so the three cannot drift.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Tuple

from .. import _core

__all__ = ["Code", "CODES", "HINTS", "DOCS_PAGE", "code_info", "hint_for", "codes_matching"]

# Where the codes are documented, relative to the GraphMend repository.
DOCS_PAGE = "docs/DIAGNOSTICS.md"


@dataclasses.dataclass(frozen=True)
class Code:
    code: str
    name: str  # kebab-case, as Ruff names its rules
    summary: str  # the core's summary (codes.def)
    status_class: str  # error | break | out-of-scope | internal | note
    gb_ids: Tuple[str, ...]  # Dynamo's graph-break ids for this kind of site
    fixed_by: str  # the rewrite that fixes it, or "" when none does
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

_DESCRIPTIONS: Dict[str, Tuple[str, str, Tuple[str, ...], str, str, str]] = {
    # code: (name, status_class, gb_ids, fixed_by, description, hint)
    "GM001": (
        "syntax-error",
        "error",
        (),
        "",
        "The file does not parse (CPython's message and position). Nothing else is "
        "reported for it and it is never rewritten.",
        "fix the syntax error",
    ),
    "GM002": (
        "tokenize-error",
        "error",
        (),
        "",
        "The tokenizer rejects the file (an unterminated string, a bad character, an "
        "unmatched bracket).",
        "fix the syntax error",
    ),
    "GM003": (
        "indentation-error",
        "error",
        (),
        "",
        "IndentationError or TabError, as CPython raises them.",
        "fix the indentation",
    ),
    "GM004": (
        "encoding-error",
        "error",
        (),
        "",
        "The file is not valid in its declared encoding (UTF-8 by default) or contains a NUL byte.",
        "save the file as UTF-8 or declare its encoding",
    ),
    "GM101": (
        "data-dependent-branch",
        "break",
        ("GB0170", "GB0035"),
        "where",
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
        "defer",
        "A print call inside traced code. [Defer] records it and replays it at the "
        "compile boundary, in program order.",
        "",
    ),
    "GM103": (
        "logging-call",
        "break",
        ("GB0291",),
        "defer",
        "A logging.Logger method call inside traced code. [Defer] records it and "
        "replays it at the compile boundary.",
        "",
    ),
    "GM104": (
        "warnings-warn",
        "break",
        ("GB0007", "GB0008"),
        "defer",
        "A warnings.warn call inside traced code. [Defer] records it and replays it at "
        "the compile boundary, with the original call site.",
        "",
    ),
    "GM105": (
        "validation-guard",
        "break",
        ("GB0170",),
        "trap",
        '`if <tensor condition>: raise E("literal")`. [Trap] turns it into an '
        "in-graph check whose failure raises the same exception at the compile "
        "boundary.",
        "",
    ),
    "GM106": (
        "python-scalar",
        "break",
        ("GB0124", "GB0109"),
        "scalar",
        ".item() or .tolist() on a tensor, or int()/float() of one, or a branch on "
        "such a value. [Scalar] holds a scalar assigned to a name and only compared "
        "with ints (tested with isinstance, read in the body of a guard) as a tensor "
        "while compiling; a .item() compared where a fixed condition reads it is "
        "compared in the graph with that fix. Others are declined.",
        "Dynamo captures it with torch._dynamo.config.capture_scalar_outputs = True",
    ),
    "GM107": (
        "data-dependent-shape",
        "out-of-scope",
        ("GB0036", "GB0037"),
        "",
        "An operation whose output shape depends on tensor data (nonzero, unique, "
        "masked_select, boolean-mask indexing). Reported, not rewritten.",
        "Dynamo captures it with torch._dynamo.config.capture_dynamic_output_shape_ops = True",
    ),
    "GM108": (
        "tensor-slice-bound",
        "out-of-scope",
        ("GB0038",),
        "",
        "A slice whose bound is a tensor (x[:n] with n = x.argmax()). Reported, not rewritten.",
        "compute the bound as a Python int outside the compiled region",
    ),
    "GM109": (
        "tensor-check",
        "break",
        ("GB0124",),
        "trap",
        "torch._check_tensor_all(cond) without a message callable: torch reads cond "
        "on the host. [Trap] makes it an in-graph assert raised at the boundary.",
        "",
    ),
    "GM110": (
        "tensor-assert",
        "break",
        (),
        "trap",
        "`assert <tensor condition>`: compiled code would raise RuntimeError where the "
        "program raises AssertionError. [Trap] keeps the AssertionError.",
        "",
    ),
    "GM190": (
        "unused-pragma",
        "note",
        (),
        "",
        "A `# graphmend: ignore[...]` or `# noqa: GM...` comment that suppressed no "
        'site. Off by default; select it with select = ["GM190"].',
        "remove the comment",
    ),
    "GM901": (
        "fix-does-not-parse",
        "internal",
        (),
        "",
        "A fix produced text that does not parse; the fix is not applied.",
        "please report this with the input that produced it",
    ),
    "GM902": (
        "fix-not-idempotent",
        "internal",
        (),
        "",
        "Mending the mended text would edit it again; the fix is not applied.",
        "please report this with the input that produced it",
    ),
}


def _build() -> Dict[str, Code]:
    table = {}
    for code, summary in _core.CODES:
        name, status_class, gb_ids, fixed_by, description, hint = _DESCRIPTIONS[code]
        table[code] = Code(code, name, summary, status_class, gb_ids, fixed_by, description, hint)
    return table


CODES: Dict[str, Code] = _build()
_BY_NAME = {info.name: info for info in CODES.values()}

# Codes that are off unless selected by their full code (Ruff's preview/opt-in rules).
OPT_IN = ("GM190",)

# What the user can do, per decline reason id (src/diag/reasons.def).
HINTS: Dict[str, str] = {
    "suppressed": "",
    "internal": "please report this with the input that produced it",
    "out-of-scope": "",
    "not-in-profile": "",
    "rewrite-disabled": "the rewrite is switched off in the configuration ([tool.graphmend] rewrites)",
    "overlap": "another fix in the same statement was applied; run `graphmend fix` again after it",
    "no-location": "",
    "mended-does-not-parse": "please report this with the input that produced it",
    "uses-item": "see GM106: Dynamo captures it with capture_scalar_outputs = True",
    "scalar-used-otherwise": "keep the scalar a tensor where the program computes with it "
    "(x / n.clamp(min=1) rather than x / max(1, n.item())), or capture it with "
    "capture_scalar_outputs = True",
    "scalar-assigned-again": "read the scalar into a name of its own, assigned once",
    "scalar-read-form": "read one element with .item(), int() or float(); .tolist() is kept "
    "as it is",
    "scalar-comparison-not-fixed": "see the diagnostic of the branch or guard that compares it",
    "masked-target-not-fresh": "the tensor may come from the caller (a parameter, an attribute, a "
    "global) or be saved for backward; update a new tensor (x = x.masked_fill(mask, v)) instead",
    "masked-other-mask": "update under the very mask the condition tests (`if m.any(): "
    "x.masked_fill_(m, v)`)",
    "masked-mask-not-name": "bind the mask to a local name and test `name.any()`",
    "masked-value-not-number": "fill with a Python number; for a tensor value use torch.where on a "
    "new tensor",
    "masked-has-else": "an if with an else branch keeps its break; write the else as an if of "
    "its own",
    "masked-other-statement": "move the other statements out of the if",
    "masked-update-form": "write the update as `x.masked_fill_(mask, v)` or `x[mask] = v` on a "
    "local name (or an integer slice of one, `x[1:][mask] = v`)",
    "mutates-state": "move the attribute or buffer update out of the branch, or use torch.where "
    "on a new tensor",
    "torch-not-imported": "import torch under its own name (`import torch`)",
    "not-tensor": "neither the source nor a run-time check shows it is a tensor (a global, a value "
    "assigned in only some paths, a Python scalar from .item() under and/or); annotate it as "
    "torch.Tensor if it is one",
    "not-pure": "a call or operation in it may have side effects or raise when its branch is not "
    "taken; compute it before the if",
    "indexes-by-value": "a 0-d tensor index is read with .item(); index with a Python int, or "
    "gather/index_select with a tensor of indices that are in range on both sides",
    "indexes-by-branch-value": "compute the index before the if (the check that lets the "
    "read go ahead of the branch runs before the statement)",
    "python-number": "keep the value a tensor on both sides (torch.tensor(0.0) where the other "
    "side is a tensor), if float32 arithmetic is what the program means; or end the function "
    "after the branch with short, pure straight-line code and its return, which is then "
    "computed on both sides (tail duplication)",
    "selects-python-value": "a flag, None or a Python number set in a branch is never selected "
    "by torch.where: keep such values out of the branch, or make them tensors if float32 "
    "arithmetic is what the program means",
    "shares-tensor": "the branch picks a tensor that the function later changes in place (or "
    "one changed through another name): clone it in the branch, or change a copy",
    "elif-alone": "a data-dependent elif under an if on a Python value stays as written: test "
    "the Python value in an if of its own around the data-dependent if",
    "tail-duplication": "the rest of the function after the branch is computed on both sides "
    "only when it is short (12 statements), pure straight-line code (assignments, ifs on Python "
    "numbers) ending in its return, at the function's own level",
    "maybe-unbound": "bind the variable on every path before the if",
    "conditional-calls-code": "write it as an if statement: branches that call submodules become "
    "torch.cond there",
    "while-loop": "loops are not predicated; consider torch.cond or torch._higher_order_ops."
    "while_loop by hand",
    "not-data-dependent": "",
    "not-an-if": "write the conditional expression as an if statement, or use torch.where",
    "branch-raises": 'a raise ending a branch arm is predicated as `raise E("literal")` (or a '
    "message formatted from values other than tensors, reading nothing the branch assigns), "
    "where another arm gives a value and no branch calls code or prints",
    "predicated-fallback": "",
    "different-live-sets": "assign the same variables in every branch",
    "no-live-value": "nothing computed in the branches is used afterwards; remove the if",
    "partial-return": "return in every branch, or in none",
    "cond-reassigned": "use a new name for the value the branch reassigns",
    "nested-call": "compute the submodule call before the if",
    "unsupported-statement": "keep the branches to assignments of expressions (and nested ifs)",
    "branch-has-else": "a branch that only prints, logs or warns is deferred whole when it has no "
    "else branch",
    "branch-live-after": "a deferred branch runs its assignments whatever the condition: use "
    "those names only inside the branch, or keep the break",
    "branch-not-static": "build the message from constants and config values (f-strings without "
    "format specs, ==, is, and/or/not, +) before the print/log/warn, or keep the break",
    "has-else": "an elif guard stays as written; a guard with an else is predicated by [Where] "
    "where its reason allows",
    "not-single-raise": 'the shape [Trap] accepts is `if cond: raise E("literal")`',
    "bare-raise": "raise a new exception with a string-literal message",
    "raise-from": "drop `from ...` or keep the break",
    "message-not-literal": "use a string-literal message, or keep the break",
    "message-formats-tensor": "the message formats tensor data, which no constant in the graph can "
    "hold; format only config values, dtypes or numbers, or keep the break",
    "exception-not-class": "raise a builtin or module-level exception class by its plain name",
    "result-used": "do not use the return value of print/log/warn calls",
    "user-object-str": "format the value before the call (str(obj) outside the traced code), or "
    "keep the break",
    "f-string": "use a plain f-string without nested braces, or str.format",
    "callee-unknown": "call print, logging or warnings by their usual names",
    "caller-frame": "drop the stacklevel/stack_info/exc_info argument, or keep the break",
    "other-stream": "print to sys.stdout or sys.stderr",
    "inside-with": "move the call out of the with block",
    "other": "",
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
