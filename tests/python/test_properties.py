"""Property tests of the mender: hypothesis writes small branchy tensor programs (if/else,
elif, else-less updates and returns on reductions, with arithmetic branch values over one
or two tensors), mend_source rewrites them, and the mended program must compute exactly
what the original computes, eagerly, on random inputs. Mending the mended text again must
change nothing, and every line of the line map must point into the original.
"""

from __future__ import annotations

import re
import textwrap

import pytest
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import graphmend

pytestmark = pytest.mark.skipif(
    not hasattr(graphmend, "mend_source"), reason="graphmend.mend_source is not available"
)

TENSORS = ("x", "y")
CONSTANTS = st.sampled_from(["0.5", "1.0", "2.0", "-1.0", "0.0", "3.0"])


@st.composite
def values(draw, names):
    """An elementwise tensor expression over the variables in ``names`` (same shape)."""
    a = draw(st.sampled_from(names))
    b = draw(st.sampled_from(names))
    c = draw(CONSTANTS)
    form = draw(st.integers(0, 8))
    return [
        f"{a} + {b}",
        f"{a} * {c}",
        f"{a} - {c}",
        f"torch.tanh({a})",
        f"{a}.abs()",
        f"torch.relu({a}) * {b}",
        f"{a} * {b} + {c}",
        f"torch.clamp({a}, min={c})",
        f"torch.zeros_like({a}) + {c}",
    ][form]


@st.composite
def conditions(draw, names):
    """A data-dependent condition: a reduction compared with a constant, maybe combined."""

    def atom():
        a = draw(st.sampled_from(names))
        c = draw(CONSTANTS)
        op = draw(st.sampled_from([">", "<", ">=", "<="]))
        reduction = draw(
            st.sampled_from(
                [
                    f"{a}.sum()",
                    f"{a}.mean()",
                    f"{a}.max()",
                    f"{a}.min()",
                    f"torch.sum({a})",
                    f"({a} * 2).sum()",
                ]
            )
        )
        if draw(st.booleans()) and draw(st.booleans()):
            return f"torch.any({a} {op} {c})"
        return f"{reduction} {op} {c}"

    first = atom()
    shape = draw(st.integers(0, 4))
    if shape == 0:
        return first
    if shape == 1:
        return f"{first} and {atom()}"
    if shape == 2:
        return f"{first} or {atom()}"
    if shape == 3:
        return f"not ({first})"
    return f"not ({first}) and {atom()}"


@st.composite
def branch_statement(draw, names, depth):
    """An if statement assigning tensors; returns (lines, names bound after it)."""
    target = draw(st.sampled_from(["u", "v", names[0]]))
    cond = draw(conditions(names))
    kind = draw(
        st.sampled_from(
            ["if_else", "else_less", "elif", "nested"]
            if depth
            else ["if_else", "else_less", "elif"]
        )
    )
    bound = list(names)
    if kind == "else_less" and target not in names:
        target = names[0]
    if kind == "if_else":
        lines = [
            f"if {cond}:",
            f"    {target} = {draw(values(names))}",
            "else:",
            f"    {target} = {draw(values(names))}",
        ]
    elif kind == "else_less":
        lines = [f"if {cond}:", f"    {target} = {draw(values(names))}"]
    elif kind == "elif":
        lines = [
            f"if {cond}:",
            f"    {target} = {draw(values(names))}",
            f"elif {draw(conditions(names))}:",
            f"    {target} = {draw(values(names))}",
            "else:",
            f"    {target} = {draw(values(names))}",
        ]
    else:
        inner, _ = draw(branch_statement(names, depth - 1))
        inner_target = next(
            (m.group(1) for m in map(re.compile(r"^\s*(\w+) = ").match, inner) if m),
            names[0],
        )
        if inner_target != target:
            target = inner_target
        lines = [
            f"if {cond}:",
            *["    " + line for line in inner],
            "else:",
            f"    {target} = {draw(values(names))}",
        ]
    if target not in bound:
        bound.append(target)
    return lines, bound


@st.composite
def programs(draw):
    two = draw(st.booleans())
    names = list(TENSORS[: 2 if two else 1])
    params = ", ".join(f"{n}: torch.Tensor" for n in names)
    body = []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            target = draw(st.sampled_from(["u", "v", "w"]))
            body.append(f"{target} = {draw(values(names))}")
            if target not in names:
                names.append(target)
        lines, names = draw(branch_statement(names, 1))
        body += lines
    if draw(st.booleans()):
        cond = draw(conditions(names))
        body += [
            f"if {cond}:",
            f"    return {draw(values(names))}",
            f"return {draw(values(names))}",
        ]
    else:
        body.append(f"return {' + '.join(names)}")
    source = "import torch\n\n\ndef f(" + params + "):\n" + textwrap.indent("\n".join(body), "    ")
    # The compile call makes f an entry point: mend_source mends what Dynamo traces.
    return source + "\n\n\ntorch.compile(f)\n", 2 if two else 1


def _load(source, filename):
    namespace = {"__name__": "graphmend_property_program"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["f"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(0, 2**31 - 1))
def test_mended_program_computes_what_the_original_computes(program, seed):
    source, arity = program
    result = graphmend.mend_source(source, filename="<property>")
    assert result.error is None, result.error
    mended_source = result.source
    event(f"fixed {len(result.fixed)} of {len(result.diagnostics)} break sites")
    compile(mended_source, "<mended>", "exec")  # the mended text is valid Python
    mended_lines = len(mended_source.splitlines())
    assert mended_lines <= len(result.line_map) <= mended_lines + 1
    original_lines = len(source.splitlines())
    assert all(1 <= line <= original_lines + 1 for line in result.line_map)
    again = graphmend.mend_source(mended_source, filename="<property>")
    assert again.source == mended_source, "mending the mended text changes nothing"

    original = _load(source, "<original>")
    mended = _load(mended_source, "<mended>")
    generator = torch.Generator().manual_seed(seed)
    for _ in range(4):
        args = [torch.randn(3, generator=generator) * 2 for _ in range(arity)]
        with torch.no_grad():
            expected = original(*[a.clone() for a in args])
            actual = mended(*[a.clone() for a in args])
        assert expected.dtype == actual.dtype and expected.shape == actual.shape
        assert torch.equal(
            torch.nan_to_num(expected, nan=7.0), torch.nan_to_num(actual, nan=7.0)
        ), (source, mended_source, args)


def test_generated_programs_are_rewritten():
    """The generator exercises the rewrites: a fixed example is mended to torch.where."""
    source = textwrap.dedent(
        """\
        import torch


        def f(x: torch.Tensor):
            if x.sum() > 0:
                u = x * 2.0
            else:
                u = x - 1.0
            return u


        torch.compile(f)
        """
    )
    result = graphmend.mend_source(source, filename="<example>")
    assert result.changed and "torch.where" in result.source
    assert [d.code for d in result.diagnostics] == ["GM101"] and result.diagnostics[0].fixed
