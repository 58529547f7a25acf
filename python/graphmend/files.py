"""Files on disk as the command line meets them: finding the Python files below a path,
matching globs, reading a file in its own encoding, and writing one back atomically with
its encoding, BOM and mode bits."""

from __future__ import annotations

import codecs
import dataclasses
import io
import os
import re
import shutil
import tempfile
import tokenize
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence

__all__ = [
    "ALWAYS_EXCLUDED",
    "SourceFile",
    "UserError",
    "display_path",
    "glob_matches",
    "python_files",
    "read_source",
    "write_atomic",
]

# Folders never walked into (named explicitly, their files are still checked).
ALWAYS_EXCLUDED = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "__pycache__",
    "build",
    "dist",
    ".tox",
    ".nox",
    "site-packages",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
)


def display_path(path: str) -> str:
    """``path`` relative to the working directory when below it, with ``/`` separators."""
    if path == "-":
        return path
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute)
    except ValueError:  # another drive (Windows)
        relative = absolute
    shown = absolute if relative.startswith("..") else relative
    return shown.replace(os.sep, "/")


_GLOB_CACHE: dict = {}


def _glob_regex(pattern: str) -> "re.Pattern[str]":
    """``**`` matches any number of folders, ``*`` and ``?`` stay within one, ``[...]`` is a
    class."""
    regex = _GLOB_CACHE.get(pattern)
    if regex is None:
        out, i = [], 0
        while i < len(pattern):
            if pattern.startswith("**/", i):
                out.append("(?:.*/)?")
                i += 3
            elif pattern.startswith("**", i):
                out.append(".*")
                i += 2
            elif pattern[i] == "*":
                out.append("[^/]*")
                i += 1
            elif pattern[i] == "?":
                out.append("[^/]")
                i += 1
            elif pattern[i] == "[" and "]" in pattern[i + 1 :]:
                close = pattern.index("]", i + 1)
                out.append("[" + pattern[i + 1 : close].replace("!", "^", 1) + "]")
                i = close + 1
            else:
                out.append(re.escape(pattern[i]))
                i += 1
        regex = _GLOB_CACHE[pattern] = re.compile("".join(out) + r"/?\Z")
    return regex


def glob_matches(relative: str, patterns: Sequence[str]) -> bool:
    """Whether a ``/``-separated path relative to the configuration's folder matches one of
    ``patterns``; a pattern without ``/`` also matches any single component (``legacy_*.py``,
    ``fixtures``), as Ruff's exclude does."""
    parts = relative.split("/")
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if pattern.startswith("./"):
            pattern = pattern[2:]
        regex = _glob_regex(pattern)
        if regex.match(relative):
            return True
        if "/" not in pattern and any(regex.match(part) for part in parts):
            return True
        # A pattern naming a folder excludes what lies below it.
        if any(regex.match("/".join(parts[:n])) for n in range(1, len(parts))):
            return True
    return False


class UserError(Exception):
    """Something the user must change (exit 2): shown as one line, ``graphmend <command>:
    <message> (<path>)``, with no traceback."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path


def python_files(paths: Iterable[str], excluded, *, force_exclude: bool = False) -> Iterator[str]:
    """The ``*.py`` files of ``paths``: files as given, folders walked (sorted, not into
    ALWAYS_EXCLUDED folders nor those ``excluded(path)`` accepts, symbolic links not
    followed out of the folder). Raises UserError for a missing path and for a folder with
    no Python file."""
    for path in paths:
        if os.path.isdir(path):
            found = False
            for file in _walk(path, excluded):
                found = True
                yield file
            if not found:
                raise UserError("no Python files found", display_path(path))
        elif os.path.lexists(path):
            if force_exclude and excluded(path):
                continue
            yield path
        else:
            raise UserError("no such file or directory", display_path(path))


def _walk(root: str, excluded) -> Iterator[str]:
    real_root = os.path.realpath(root)
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in ALWAYS_EXCLUDED
            and not excluded(os.path.join(folder, d))
            and not os.path.islink(os.path.join(folder, d))
        )
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            if os.path.islink(path) and not _inside(os.path.realpath(path), real_root):
                continue
            if not excluded(path):
                yield path


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


@dataclasses.dataclass
class SourceFile:
    """A file's bytes and how to write text back in the same form."""

    path: str
    data: bytes
    encoding: str  # as tokenize.detect_encoding names it ("utf-8-sig" for a BOM)
    text: Optional[str]  # None when the bytes do not decode in that encoding
    decode_error: str = ""

    def encode(self, text: str) -> bytes:
        """``text`` in the file's own encoding (a UTF-8 BOM put back); UnicodeEncodeError
        when the encoding cannot hold a character."""
        if self.encoding == "utf-8-sig":
            return codecs.BOM_UTF8 + text.encode("utf-8", "surrogatepass")
        return text.encode(self.encoding)


def read_source(path: str, data: Optional[bytes] = None) -> SourceFile:
    """Reads ``path`` (OSError propagates) and decodes it as CPython would (BOM, PEP 263
    cookie). Undecodable bytes give ``text=None`` and ``decode_error``."""
    if data is None:
        with open(path, "rb") as handle:
            data = handle.read()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        return SourceFile(path, data, "utf-8", None, str(exc))
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        return SourceFile(path, data, encoding, None, str(exc))
    if encoding == "utf-8-sig" and text.startswith("\ufeff"):
        text = text[1:]
    return SourceFile(path, data, encoding, text)


def write_atomic(path: str, data: bytes, *, durable: bool = True, keep_mode: bool = True) -> None:
    """Replaces ``path`` with ``data`` at once: a temporary file in the same folder, flushed
    (and fsync'ed when ``durable``), given ``path``'s mode bits, then renamed over it. Nothing
    is left behind on failure; OSError propagates. A read-only file is replaced too, as
    editors do, when its folder is writable."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=folder, prefix=".graphmend-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if keep_mode and os.path.exists(path):
            shutil.copymode(path, temp)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def lines_with_ends(text: str) -> List[str]:
    """The lines of ``text`` with their line breaks (\\n, \\r\\n or \\r only, unlike
    ``str.splitlines``)."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z", text)


def relative_to(path: str, root: Optional[Path]) -> str:
    """``path`` relative to ``root`` with ``/`` (the form globs match), or as displayed."""
    if root is None:
        return display_path(path)
    try:
        return Path(os.path.abspath(path)).relative_to(root).as_posix()
    except ValueError:
        return display_path(path)
