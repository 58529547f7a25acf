"""Compiles a mended module without compiling again the functions it left as they were.

A rewrite touches a few functions of a module; CPython's ``compile`` of the whole mended
text costs time in proportion to all of it. The import hook asks the mender for the
*skeleton* (``MendResult.skeleton``: the mended text with the body of every untouched
function and class replaced by a stub ending on the same line and column), compiles that,
and puts in place of each stub the code object of that function or class body from the
original module's ``.pyc``, which the original program would have loaded anyway.

The result equals the code compiled from the whole mended text (``tests/python/
test_splice.py`` compares them, object by object, on every mended module of transformers).
Whatever does not match gives None, and the caller compiles the whole text: no valid
``.pyc``, a stub whose original is missing or ambiguous, or a different signature or free
variables. The mender only stubs bodies whose code does not depend on where it is compiled
(module or class scope, no ``global``; a method using ``super()`` keeps its ``__class__``
cell; ``rewrite/skeleton.h``).
"""

from __future__ import annotations

import _imp
import importlib.util
import marshal
import os
import sys
from types import CodeType
from typing import Dict, Iterable, Iterator, Optional, Tuple

__all__ = ["SUPPORTED", "code_by_name_and_line", "original_code", "splice"]

# The version on which spliced code has been checked equal to whole-text code (the compiler
# of another version may let more of a function's body reach the enclosing code: 3.13
# records the attributes methods assign in ``__static_attributes__``); others compile the
# whole text.
SUPPORTED = sys.version_info[:2] == (3, 11)

_HEADER = 16
_HASH_BASED = 0b01
_FLAG_BITS = 0b11
_CO_VARARGS = 0x04
_CO_VARKEYWORDS = 0x08


def original_code(path: str, data: bytes) -> Optional[CodeType]:
    """The code of the module at ``path`` from its ``.pyc``, when that was compiled from
    ``data``; None when there is no such ``.pyc``.

    A hash-based ``.pyc`` is checked against ``data``. A timestamp-based one must match the
    source's modification time (in seconds) and size, as the import system checks it, and
    also have been written after the source was last modified: an edit within the second
    the ``.pyc`` records, that kept the size, would otherwise pass, and the cache, keyed by
    the new text, would keep the stale functions."""
    try:
        with open(importlib.util.cache_from_source(path), "rb") as handle:
            blob = handle.read()
            written = os.fstat(handle.fileno()).st_mtime_ns
    except (NotImplementedError, ValueError, OSError):
        return None
    if len(blob) < _HEADER or blob[:4] != importlib.util.MAGIC_NUMBER:
        return None
    flags = int.from_bytes(blob[4:8], "little")
    if flags & ~_FLAG_BITS:
        return None
    if flags & _HASH_BASED:
        if blob[8:16] != importlib.util.source_hash(data):
            return None
    elif not _timestamp_matches(path, blob, len(data), written):
        return None
    try:
        code = marshal.loads(blob[_HEADER:])
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(code, CodeType):
        return None
    if code.co_filename != path:  # compiled elsewhere and moved (pip --target): as the loader does
        _imp._fix_co_filename(code, path)
    return code


def _timestamp_matches(path: str, blob: bytes, size: int, written_ns: int) -> bool:
    try:
        stat = os.stat(path)
    except OSError:
        return False
    return (
        int.from_bytes(blob[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(blob[12:16], "little") == size & 0xFFFFFFFF
        and stat.st_mtime_ns < written_ns
    )


def splice(
    skeleton: CodeType, original: CodeType, stubbed_lines: Iterable[int]
) -> Optional[CodeType]:
    """``skeleton`` (compiled from ``MendResult.skeleton``, in the original's line numbers)
    with each stub of a function or class body starting on one of ``stubbed_lines`` replaced
    by its code from ``original``; None when a stub has no matching original."""
    wanted = set(stubbed_lines)
    originals = code_by_name_and_line(original)
    replaced = []

    def rebuild(code: CodeType) -> CodeType:
        consts = list(code.co_consts)
        for index, const in enumerate(consts):
            if not isinstance(const, CodeType):
                continue
            if const.co_firstlineno in wanted and not const.co_name.startswith("<"):
                match = originals.get((const.co_qualname, const.co_firstlineno))
                if match is None or not _same_frame(const, match):
                    raise _NoMatch
                consts[index] = match
                replaced.append(const.co_firstlineno)
            else:
                consts[index] = rebuild(const)
        if all(new is old for new, old in zip(consts, code.co_consts)):
            return code
        return code.replace(co_consts=tuple(consts))

    try:
        spliced = rebuild(skeleton)
    except _NoMatch:
        return None
    if sorted(replaced) != sorted(wanted):
        return None
    return spliced


class _NoMatch(Exception):
    pass


def _walk(code: CodeType) -> Iterator[CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _walk(const)


def code_by_name_and_line(module: CodeType) -> Dict[Tuple[str, int], Optional[CodeType]]:
    """Every code object of ``module`` by (qualified name, first line); None where two
    share both."""
    found: Dict[Tuple[str, int], Optional[CodeType]] = {}
    for code in _walk(module):
        key = (code.co_qualname, code.co_firstlineno)
        found[key] = None if key in found else code
    return found


def _same_frame(stub: CodeType, original: CodeType) -> bool:
    """Whether ``original`` can stand where the stub was compiled: the function the
    enclosing code makes from it gets the same arguments and closure."""
    varargs = _CO_VARARGS | _CO_VARKEYWORDS
    return (
        stub.co_name == original.co_name
        and stub.co_freevars == original.co_freevars
        and stub.co_argcount == original.co_argcount
        and stub.co_posonlyargcount == original.co_posonlyargcount
        and stub.co_kwonlyargcount == original.co_kwonlyargcount
        and stub.co_flags & varargs == original.co_flags & varargs
        and stub.co_filename == original.co_filename
    )
