"""Source text as the core takes it: the grammar version and the decoding of a file's bytes."""

from __future__ import annotations

import io
import sys
import tokenize as _pytokenize
from typing import Optional, Tuple, Union

from . import _core

Version = Optional[Tuple[int, int]]
SUPPORTED_VERSIONS = tuple(tuple(v) for v in _core.SUPPORTED_VERSIONS)


def check_version(version: Version) -> Tuple[int, int]:
    if version is None:
        version = tuple(sys.version_info[:2])
    version = tuple(version)
    if version not in SUPPORTED_VERSIONS:
        raise ValueError(
            f"unsupported Python version {'.'.join(map(str, version))}: "
            f"supported are {', '.join('.'.join(map(str, v)) for v in SUPPORTED_VERSIONS)}"
        )
    return version


def decode_source(data: bytes, filename: str = "<unknown>") -> bytes:
    """Returns the UTF-8 text of a source file's bytes, as CPython decodes it.

    Honours a UTF-8 BOM and a PEP 263 coding cookie (``tokenize.detect_encoding``).
    UTF-8 input is passed through unchanged (minus the BOM) so that the parser reports
    invalid sequences where they are, as CPython does. Raises SyntaxError when the
    declared encoding is unknown or the bytes do not decode.
    """
    try:
        encoding, _ = _pytokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as err:
        raise SyntaxError(str(err), (filename, 0, -1, None)) from None
    if encoding == "utf-8-sig":
        return data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    if encoding == "utf-8":
        return data
    try:
        return data.decode(encoding).encode("utf-8", "surrogatepass")
    except (UnicodeDecodeError, LookupError) as err:
        raise SyntaxError(f"(unicode error) {err}", (filename, 1, 0, None)) from None


def source_arg(source: Union[str, bytes], filename: str) -> Union[str, bytes]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return decode_source(bytes(source), filename)
    if isinstance(source, str):
        return source
    raise TypeError(f"source must be str or bytes, not {type(source).__name__}")
