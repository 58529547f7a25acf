"""What GraphMend makes of each GM107 site (data-dependent output shape) of the transformers
corpus: fixed by [MaskedReduce], or declined with which reason, and for the boolean-mask
selections that are kept, how they are used.

    .venv/bin/python tools/gm107_survey.py
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "python"))
import corpus  # noqa: E402  (the corpus test's file discovery and decoding)

import graphmend  # noqa: E402


def main() -> None:
    found, _ = corpus.corpus_files(["transformers"])
    outcomes: collections.Counter = collections.Counter()
    kept_uses: collections.Counter = collections.Counter()
    for _, path in found:
        text = corpus.decode_like_cpython(path.read_bytes())
        result = graphmend.mend_source(text, str(path), trace_all=True)
        outcomes["fixed"] += sum(d.code == "GM107" for d in result.fixed)
        for d in result.declined:
            if d.code != "GM107":
                continue
            outcomes[d.reason_id] += 1
            if d.reason_id == "masked-selection-kept":
                kept_uses[d.message.split(") is ", 1)[-1].split(",")[0]] += 1
    print(f"{len(found)} files; GM107 sites: {dict(outcomes)}")
    print(f"selections kept, by use: {kept_uses.most_common()}")


if __name__ == "__main__":
    main()
