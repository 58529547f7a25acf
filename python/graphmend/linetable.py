"""Moves the line numbers of compiled code from the mended text's lines to the original's.

Mended text is compiled under the original file name, but a rewrite that adds or removes
lines shifts every line after it. Parsing the text to a tree, renumbering every node and
compiling the tree is exact but slow (three passes over a large module in Python); this
module compiles the text directly and renumbers the code objects instead:

* a code object whose lines all moved by the same amount (most functions of a mended
  module: those before, between or after the rewritten ones) only gets a new
  ``co_firstlineno``, because its location table stores lines relative to that;
* the others (the rewritten functions, and the module and class bodies around them) get
  their location table re-encoded with every line mapped, in the format CPython 3.11-3.13
  uses (``Objects/locations.md``).

The result has the same positions, instruction by instruction, as compiling the renumbered
tree (``tests/python/test_linetable.py`` checks it on real mended modules).
"""

from __future__ import annotations

import sys
from itertools import accumulate, groupby
from operator import itemgetter, ne, sub
from types import CodeType
from typing import FrozenSet, List, Optional, Sequence, Tuple, Union

__all__ = ["SUPPORTED", "LineMap", "remap_lines"]

# The location table format these versions share; other versions take the tree path.
SUPPORTED = (3, 11) <= sys.version_info[:2] <= (3, 13)

_NO_COLUMNS = 13
_LONG_FORM = 14
_NO_LOCATION = 15
_MAX_ENTRY_UNITS = 8

Position = Tuple[Optional[int], Optional[int], Optional[int], Optional[int]]


class LineMap:
    """Mended line -> original line, and which lines share one offset: made once for a
    text whose code objects are renumbered one by one."""

    def __init__(self, line_map: Sequence[int]) -> None:
        if 0 in line_map:
            self.mapped = [0] + [original or line for line, original in enumerate(line_map, 1)]
        else:
            self.mapped = [0, *line_map]
        # segment[line]: lines with the same segment number moved by the same amount
        # (lines 0 and 1 are segment 0; each line after starts a new one where its offset
        # differs from the line before's).
        moved = list(map(sub, self.mapped, range(len(self.mapped))))
        self.segment = [0, *accumulate(map(ne, moved[2:], moved[1:]), initial=0)][: len(moved)]

    def __call__(self, line: int) -> int:
        return self.mapped[line] if 1 <= line < len(self.mapped) else line

    def shift(self, first: int, last: int) -> Optional[int]:
        """The one amount every line in first..last moved by, or None."""
        if not (1 <= first <= last < len(self.mapped)) or self.segment[first] != self.segment[last]:
            return None
        return self.mapped[first] - first


def remap_lines(
    code: CodeType,
    line_map: Union[Sequence[int], LineMap],
    dedent: Optional[Tuple[int, FrozenSet[int]]] = None,
) -> CodeType:
    """``code`` compiled from mended text, with every line number mapped through
    ``line_map`` (``line_map[i - 1]`` is the original line of mended line ``i``; 0 keeps
    the line), or a ``LineMap`` of it. ``dedent``: ``(width, lines)`` when the text was
    compiled indented by ``width`` more than the original on those (compiled) lines: their
    columns lose it."""
    lines = line_map if isinstance(line_map, LineMap) else LineMap(line_map)
    return _remap(code, lines, dedent)


def _remap(
    code: CodeType, lines: LineMap, dedent: Optional[Tuple[int, FrozenSet[int]]] = None
) -> CodeType:
    consts = tuple(
        _remap(c, lines, dedent) if isinstance(c, CodeType) else c for c in code.co_consts
    )
    positions = list(code.co_positions())
    # An instruction with a start line has an end line, so these two bound every line used.
    first = min(filter(None, map(itemgetter(0), positions)), default=code.co_firstlineno)
    last = max(filter(None, map(itemgetter(1), positions)), default=first)
    shift = lines.shift(min(first, code.co_firstlineno), max(last, code.co_firstlineno))
    if shift is not None and dedent is None:
        return code.replace(co_firstlineno=code.co_firstlineno + shift, co_consts=consts)
    first_line = lines(code.co_firstlineno)
    runs = []  # (position, how many code units in a row have it), mapped
    for position, run in groupby(positions):
        if dedent is not None:
            position = _dedent(position, *dedent)
        position = _map_position(position, lines)
        count = len(list(run))
        if runs and runs[-1][0] == position:
            count += runs.pop()[1]
        runs.append((position, count))
    return code.replace(
        co_firstlineno=first_line, co_linetable=_encode_runs(runs, first_line), co_consts=consts
    )


def _dedent(position: Position, width: int, indented: FrozenSet[int]) -> Position:
    start, end, column, end_column = position
    if start is not None and column is not None and start in indented:
        column = max(column - width, 0)
    if end is not None and end_column is not None and end in indented:
        end_column = max(end_column - width, 0)
    return start, end, column, end_column


def _map_position(position: Position, lines: LineMap) -> Position:
    """As the tree path maps a node: both lines mapped, the end never before the start, and
    on one line the end column never before the start column."""
    start, end, column, end_column = position
    if start is None:
        return position
    start = lines(start)
    end = start if end is None else max(lines(end), start)
    if end == start and column is not None and end_column is not None and end_column < column:
        end_column = column
    return start, end, column, end_column


def _encode(positions: List[Position], first_line: int) -> bytes:
    """A location table for one position per code unit."""
    return _encode_runs([(p, len(list(run))) for p, run in groupby(positions)], first_line)


def _encode_runs(runs: List[Tuple[Position, int]], first_line: int) -> bytes:
    """A location table for runs of code units that share a position, each run after the
    first at another position than the one before (a run longer than an entry holds takes
    several entries)."""
    out = bytearray()
    previous_line = first_line
    for position, count in runs:
        while count > 0:
            units = min(count, _MAX_ENTRY_UNITS)
            previous_line = _encode_entry(out, position, units, previous_line)
            count -= units
    return bytes(out)


def _encode_entry(out: bytearray, position: Position, units: int, previous_line: int) -> int:
    start, end, column, end_column = position
    if start is None:
        out.append(0x80 | (_NO_LOCATION << 3) | (units - 1))
        return previous_line
    if column is None and end_column is None and end in (None, start):
        out.append(0x80 | (_NO_COLUMNS << 3) | (units - 1))
        _write_signed(out, start - previous_line)
        return start
    out.append(0x80 | (_LONG_FORM << 3) | (units - 1))
    _write_signed(out, start - previous_line)
    _write_varint(out, (end if end is not None else start) - start)
    _write_varint(out, 0 if column is None else column + 1)
    _write_varint(out, 0 if end_column is None else end_column + 1)
    return start


def _write_varint(out: bytearray, value: int) -> None:
    while value >= 64:
        out.append(0x40 | (value & 63))
        value >>= 6
    out.append(value)


def _write_signed(out: bytearray, value: int) -> None:
    _write_varint(out, (-value << 1) | 1 if value < 0 else value << 1)
