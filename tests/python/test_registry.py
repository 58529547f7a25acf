"""The core's registries as the Python side sees them: the rewrites (``_core.REWRITES``,
from src/rewrite/rewrites.def) and the diagnostic codes (``_core.CODES``, from
src/diag/codes.def)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import graphmend
from graphmend import _core, options

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_every_code_is_documented():
    text = (DOCS / "DIAGNOSTICS.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"\bGM\d{3}\b", text))
    codes = [code for code, _ in _core.CODES]
    assert len(codes) == len(set(codes)), "a code is listed twice in codes.def"
    assert not [code for code in codes if code not in documented]


def test_the_rewrites_are_the_registry_and_switch_by_keyword():
    assert (
        options.REWRITES == _core.REWRITES == ("where", "defer", "trap", "scalar", "masked_reduce")
    )
    source = (
        "import torch\n\ndef f(x: torch.Tensor):\n    print(x)\n"
        "    if x.sum() > 0:\n        x = x * 2\n    return x\n"
    )
    result = graphmend.mend_source(source, "m.py", trace_all=True)
    assert {d.rewrite for d in result.fixed} == {"defer", "where"}
    off = graphmend.mend_source(source, "m.py", trace_all=True, defer=False)
    assert [d.rewrite for d in off.fixed] == ["where"]
    assert "the [defer] rewrite is disabled" in off.declined[0].message
    held = (
        "import torch\n\ndef f(x: torch.Tensor):\n    n = x.sum().item()\n"
        "    if n > 0:\n        raise ValueError('positive')\n    return x\n"
    )
    result = graphmend.mend_source(held, "m.py", trace_all=True)
    assert sorted(d.rewrite for d in result.fixed) == ["scalar", "trap"]
    off = graphmend.mend_source(held, "m.py", trace_all=True, scalar=False)
    assert off.fixed == [] and off.source == held  # the guard needs the scalar held
    assert "the [scalar] rewrite is disabled" in off.declined[0].message


@pytest.mark.parametrize("call", ["mend_source", "install"])
def test_an_unknown_rewrite_keyword_is_a_type_error(call):
    with pytest.raises(TypeError, match="unexpected keyword argument 'wher'"):
        if call == "mend_source":
            graphmend.mend_source("x = 1\n", wher=False)
        else:
            graphmend.install(["some_package"], wher=False, cache_dir=None)


def test_the_core_rejects_an_unknown_rewrite_name():
    with pytest.raises(ValueError, match="unknown rewrite"):
        _core.mend_source("x = 1\n", "m.py", rewrites=["nosuch"])


def test_mended_code_names_the_runtime_as_the_core_says():
    source = "import torch\n\ndef f(x: torch.Tensor):\n    print(x)\n    return x\n"
    mended = graphmend.mend_source(source, "m.py", trace_all=True).source
    assert f"import graphmend.runtime as {_core.RUNTIME_NAME}" in mended
