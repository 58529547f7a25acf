#!/usr/bin/env python3
"""Compares the C++ lexer's tokens with CPython 3.12's tokenize module.

Usage: python3.12 tools/lex_oracle.py [--dump BIN] [--show N] PATH...
PATH may be files or directories (searched for *.py). Each file is lexed by the C++ lexer
(tools/lex_dump.cpp, built on demand) and by tokenize.generate_tokens; the streams are
compared as (type, start, end) with positions in (line, character column). Prints the
number of files that agree and the first differences.

CPython's tokenize differs from the C tokenizer's view in a few places the comparison
normalises: ENCODING is dropped, operators are OP, FSTRING_MIDDLE text around doubled
braces is reported with shifted positions (those tokens are compared by start only when
they contain a brace).
"""
import argparse
import os
import subprocess
import sys
import tokenize
import io

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

OPS = {
    "LPar", "RPar", "LSqb", "RSqb", "LBrace", "RBrace", "Colon", "Comma", "Semi", "Plus", "Minus",
    "Star", "Slash", "VBar", "Amper", "Less", "Greater", "Equal", "Dot", "Percent", "EqEqual",
    "NotEqual", "LessEqual", "GreaterEqual", "Tilde", "Circumflex", "LeftShift", "RightShift",
    "DoubleStar", "PlusEqual", "MinEqual", "StarEqual", "SlashEqual", "PercentEqual",
    "AmperEqual", "VBarEqual", "CircumflexEqual", "LeftShiftEqual", "RightShiftEqual",
    "DoubleStarEqual", "DoubleSlash", "DoubleSlashEqual", "At", "AtEqual", "RArrow", "Ellipsis",
    "ColonEqual", "Exclamation",
}
KINDS = {
    "Name": "NAME", "Number": "NUMBER", "String": "STRING", "FStringStart": "FSTRING_START",
    "FStringMiddle": "FSTRING_MIDDLE", "FStringEnd": "FSTRING_END", "Newline": "NEWLINE",
    "NL": "NL", "Comment": "COMMENT", "Indent": "INDENT", "Dedent": "DEDENT",
    "EndMarker": "ENDMARKER", "Error": "ERRORTOKEN",
}


def build_dump():
    out = "/tmp/graphmend_lex_dump"
    srcs = ["tools/lex_dump.cpp", "src/lex/lexer.cpp", "src/lex/token.cpp", "src/base/source.cpp",
            "src/base/unicode.cpp"]
    newest = max(os.path.getmtime(os.path.join(ROOT, s)) for s in srcs)
    if not os.path.exists(out) or os.path.getmtime(out) < newest:
        gen = [("-I" + d) for d in ("build/generated",) if os.path.isdir(os.path.join(ROOT, d))]
        subprocess.check_call(["g++", "-std=c++20", "-O2", "-Isrc", *gen, "-w", *srcs, "-o", out],
                              cwd=ROOT)
    return out


class LineMap:
    """Byte offset -> (1-based line, character column), lines broken as CPython does."""

    def __init__(self, data: bytes):
        self.data = data
        self.starts = [0]
        i, n = 0, len(data)
        while i < n:
            c = data[i]
            if c == 13:
                if i + 1 < n and data[i + 1] == 10:
                    i += 1
                self.starts.append(i + 1)
            elif c == 10:
                self.starts.append(i + 1)
            i += 1

    def pos(self, off):
        import bisect
        line = bisect.bisect_right(self.starts, off) - 1
        start = self.starts[line]
        col = len(self.data[start:off].decode("utf-8", "replace"))
        if line == 0 and self.data.startswith(b"\xef\xbb\xbf"):
            col -= 1  # tokenize strips the BOM
        return (line + 1, col)


def ours(dump, paths, version):
    res = subprocess.run([dump, "--" + version, *paths], capture_output=True, check=True)
    out = {}
    cur = None
    for line in res.stdout.decode("utf-8", "replace").splitlines():
        if line.startswith("== "):
            cur = line[3:]
            out[cur] = ([], None)
        elif line.startswith("!error "):
            out[cur] = (out[cur][0], line[7:])
        else:
            kind, b, e = line.split(" ")
            out[cur][0].append((kind, int(b), int(e)))
    return out


def theirs(data: bytes):
    text = data.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]
    toks = []
    try:
        for t in tokenize.generate_tokens(io.StringIO(text).readline):
            toks.append(t)
    except (tokenize.TokenError, SyntaxError, IndentationError) as e:
        return toks, str(e)
    return toks, None


def convert(mine, data):
    lm = LineMap(data)
    out = []
    for kind, b, e in mine:
        if kind in OPS:
            typ = "OP"
        elif kind.startswith("Kw_"):
            typ = "NAME"
        else:
            typ = KINDS.get(kind, kind)
        text = data[b:e].decode("utf-8", "replace")
        start = lm.pos(b)
        if text.endswith(("\n", "\r")) and typ in ("NL", "NEWLINE"):
            end = (start[0], start[1] + len(text))
        else:
            end = lm.pos(e)
        out.append((typ, start, end, text))
    return out


def normalise_theirs(toks):
    out = []
    for t in toks:
        typ = tokenize.tok_name[t.type]
        if typ == "ENCODING" or (typ == "FSTRING_MIDDLE" and t.string == ""):
            continue  # the lexer emits no empty FStringMiddle
        out.append((typ, t.start, t.end, t.string))
    return out


def compare(a, b, loose_structure=True):
    """Returns the index of the first difference, or -1."""
    n = max(len(a), len(b))
    for i in range(n):
        if i >= len(a) or i >= len(b):
            return i
        x, y = a[i], b[i]
        if x[0] != y[0]:
            return i
        if x[0] in ("INDENT", "DEDENT", "ENDMARKER") and loose_structure:
            if x[1][0] != y[1][0]:
                return i
            continue
        if x[0] == "NEWLINE" and y[3] == "":
            if x[1] != y[1]:
                return i
            continue
        if x[0] == "FSTRING_MIDDLE" and ("{" in y[3] or "}" in y[3]):
            continue
        if x[1] != y[1] or x[2][0] != y[2][0]:
            return i
        if x[2][1] != y[2][1]:
            # tokenize reports the end column of a multi-line token in bytes.
            if not (x[1][0] != x[2][0] and len(x[3].splitlines()[-1].encode()) == y[2][1]):
                return i
    return -1


def snippet_errors(dump, path, version, python):
    """Compares error messages and positions with compile() for snippets separated by ####."""
    import json
    import tempfile
    snippets = [x for x in open(path).read().split("\n####\n") if x]
    code = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
out = []
for s in json.load(sys.stdin):
    try:
        compile(s, "<s>", "exec")
        out.append(None)
    except SyntaxError as e:
        out.append([e.msg, e.lineno, e.offset, e.end_lineno, e.end_offset])
    except ValueError as e:
        out.append([str(e), None, None, None, None])
print(json.dumps(out))
"""
    res = subprocess.run([python, "-c", code], input=json.dumps(snippets), capture_output=True,
                         text=True, check=True)
    expected = json.loads(res.stdout)
    tmpdir = tempfile.mkdtemp()
    paths = []
    for i, snip in enumerate(snippets):
        p = os.path.join(tmpdir, "s%d.py" % i)
        with open(p, "wb") as f:
            f.write(snip.encode())
        paths.append(p)
    mine = ours(dump, paths, version)
    good = bad = 0
    for snip, p, exp in zip(snippets, paths, expected):
        toks, err = mine[p]
        if err is None:
            continue  # the parser's business
        code_, b, e, msg = err.split(" ", 3)
        data = snip.encode()
        lm = LineMap(data)
        bl, bc = lm.pos(int(b))
        el, ec = lm.pos(int(e))
        got = [msg, bl, bc + 1, el, ec + 1]
        if exp is None:
            print("MISMATCH %r\n   python: OK\n   ours:   %r" % (snip, got))
            bad += 1
            continue
        exp_end = exp[3:] if exp[4] is not None and exp[4] > exp[2] else [exp[1], exp[2]]
        exp_cmp = exp[:3] + exp_end
        if exp_cmp == got or (exp[1] is None and exp[0] == msg):
            good += 1
        else:
            bad += 1
            print("MISMATCH %r\n   python: %r\n   ours:   %r" % (snip, exp, got))
    print("%s snippets: %d agree, %d differ" % (version, good, bad))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--snippets", help="file of snippets separated by '\\n####\\n'")
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("--version", default="3.12")
    args = ap.parse_args()
    if args.snippets:
        dump = build_dump()
        python = "python3.11" if args.version == "3.11" else sys.executable
        snippet_errors(dump, args.snippets, args.version, python)
        return 0
    files = []
    for p in args.paths:
        if os.path.isdir(p):
            for d, _, fs in os.walk(p):
                files.extend(os.path.join(d, f) for f in sorted(fs) if f.endswith(".py"))
        else:
            files.append(p)
    dump = build_dump()
    agree = skipped = 0
    diffs = []
    err_agree = err_total = 0
    for i in range(0, len(files), 200):
        chunk = files[i:i + 200]
        mine_all = ours(dump, chunk, args.version)
        for f in chunk:
            data = open(f, "rb").read()
            try:
                data.decode("utf-8")
            except UnicodeDecodeError:
                skipped += 1
                continue
            toks, terr = theirs(data)
            mine, merr = mine_all[f]
            if terr or merr:
                err_total += 1
                if bool(terr) == bool(merr):
                    err_agree += 1
                else:
                    diffs.append((f, "error mismatch: tokenize=%r ours=%r" % (terr, merr)))
                continue
            a = convert(mine, data)
            b = normalise_theirs(toks)
            k = compare(a, b)
            if k < 0:
                agree += 1
            else:
                ctx = "\n      ours:   %s\n      python: %s" % (a[k] if k < len(a) else None,
                                                               b[k] if k < len(b) else None)
                diffs.append((f, "token %d differs%s" % (k, ctx)))
    total = len(files) - skipped - err_total
    print("files compared: %d, token streams agree: %d (%.2f%%)" %
          (total, agree, 100.0 * agree / max(total, 1)))
    print("files where either side failed: %d (both failed: %d); skipped non-UTF-8: %d" %
          (err_total, err_agree, skipped))
    for f, msg in diffs[:args.show]:
        print("  %s: %s" % (f, msg))
    return 0 if not diffs else 1


if __name__ == "__main__":
    sys.exit(main())
