"""The Python face of the extension: API shape, version handling, Unicode hooks, threads."""

from __future__ import annotations

import ast
import sys
import threading

import pytest

import graphmend
from graphmend import _core


def test_version_and_exports():
    assert isinstance(graphmend.__version__, str) and graphmend.__version__
    for name in ("dump_ast", "parse_check", "tokenize"):
        assert callable(getattr(graphmend, name))
        assert getattr(graphmend, name).__doc__
    assert graphmend.SUPPORTED_VERSIONS == ((3, 11), (3, 12))


def test_tokenize_shape():
    tokens = graphmend.tokenize("x = 1  # c\n")
    kinds = [kind for kind, _, _ in tokens]
    assert kinds[:3] == ["Name", "Equal", "Number"]
    assert "Comment" in kinds
    assert kinds[-1] == "EndMarker"
    for kind, start, end in tokens:
        assert isinstance(kind, str)
        assert len(start) == 2 and len(end) == 2
        assert start <= end


def test_tokenize_reports_lexer_errors():
    with pytest.raises(SyntaxError):
        graphmend.tokenize("x = 'unterminated\n")


def test_parse_only_counts_and_arena():
    ok, seconds, peak = _core._parse_only([b"x = 1\n", b"def f(:\n"], (3, 11))
    assert 0 <= ok <= 2
    assert seconds >= 0
    assert peak >= 0
    with pytest.raises(ValueError):
        _core._parse_only([b"x = 1\n"], (3, 9))


def test_source_types():
    with pytest.raises(TypeError):
        graphmend.parse_check(12)
    with pytest.raises(UnicodeEncodeError):  # as compile() does for lone surrogates
        graphmend.parse_check("x = '\ud800'\n")


def test_simple_dump_matches_ast():
    source = "x = f(1, *a, k=2)\n"
    assert graphmend.dump_ast(source) == ast.dump(ast.parse(source))
    assert graphmend.dump_ast(source, True) == ast.dump(ast.parse(source), include_attributes=True)


def test_unicode_name_escape_uses_unicodedata():
    source = "x = '\\N{BULLET} \\N{LATIN SMALL LETTER E WITH ACUTE}'\n"
    assert graphmend.dump_ast(source) == ast.dump(ast.parse(source))


def test_identifiers_are_nfkc_normalized():
    source = "\ufb01le = 1\n\u212bngstr\u00f6m = 2\n"  # 'ﬁle' -> 'file', 'Å' (Angstrom) -> 'Å'
    assert graphmend.dump_ast(source, True) == ast.dump(ast.parse(source), include_attributes=True)


def test_parse_in_threads():
    # The parser runs with the GIL released; hooks re-acquire it.
    source = "def f(x):\n    return '\\N{BULLET}' + x\n" * 50
    expected = ast.dump(ast.parse(source))
    results = []

    def work():
        for _ in range(20):
            try:
                results.append(graphmend.dump_ast(source) == expected)
            except SyntaxError as err:
                results.append(err)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 80 and all(r is True for r in results), results[:1]


def test_default_version_is_interpreter():
    if tuple(sys.version_info[:2]) not in graphmend.SUPPORTED_VERSIONS:
        with pytest.raises(ValueError):
            graphmend.parse_check("x = 1\n")
    else:
        graphmend.parse_check("x = 1\n")
