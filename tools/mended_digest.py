#!/usr/bin/env python3
"""Digests of what the mender makes of a fixed set of files, to show a change keeps it.

Mends every .py file of the installed ``transformers`` (as the import hook does, and with
``trace_all``), every case program (tests/cases) and every peer program (tests/peer), and
writes one line per file and mode: the SHA-256 of the mended text and of the diagnostics
(code, position, status, rewrite, reason id and message). A refactoring that must not
change behaviour keeps every line:

    python tools/mended_digest.py --out /tmp/before.json          # at the old commit
    python tools/mended_digest.py --compare /tmp/before.json      # at the new one

``--compare`` prints the files whose mended text or diagnostics differ and exits 1 if any do.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import graphmend

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
import corpus  # noqa: E402  (the corpus test's file discovery and decoding)


def _files() -> list[tuple[str, Path]]:
    found, _ = corpus.corpus_files(["transformers"])
    files = [("transformers/" + str(path).split("/transformers/", 1)[1], path) for _, path in found]
    for folder in ("tests/cases", "tests/peer"):
        files += [(str(p.relative_to(ROOT)), p) for p in sorted((ROOT / folder).rglob("*.py"))]
    return files


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _diagnostics_text(result) -> str:
    rows = []
    for d in result.diagnostics:
        rows.append(repr(tuple(getattr(d, field) for field in (
            "code", "line", "column", "end_line", "end_column", "fixed", "rewrite", "reason",
            "reason_id", "suppressed_by", "message"))))
    return "\n".join(rows)


def digest() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for name, path in _files():
        text = corpus.decode_like_cpython(path.read_bytes())
        if text is None:
            continue
        for mode, trace_all in (("entry", False), ("all", True)):
            result = graphmend.mend_source(text, name, trace_all=trace_all)
            out[f"{name} [{mode}]"] = {
                "text": _sha(result.source),
                "diagnostics": _sha(_diagnostics_text(result)),
            }
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the digests here (JSON)")
    parser.add_argument("--compare", type=Path, help="compare with digests written before")
    args = parser.parse_args()
    now = digest()
    if args.out:
        args.out.write_text(json.dumps(now, indent=0, sort_keys=True))
    print(f"{len(now)} file-modes digested")
    if not args.compare:
        return 0
    before = json.loads(args.compare.read_text())
    differ = sorted(
        key for key in before.keys() | now.keys() if before.get(key) != now.get(key)
    )
    for key in differ:
        print(f"differs: {key}: {before.get(key)} -> {now.get(key)}")
    print(f"{len(differ)} of {len(now)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
