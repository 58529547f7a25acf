// The lexer: CPython's tokenizer, byte for byte, for the grammar of a chosen Python version.
//
// It turns the whole input into a token vector up front (the parser backtracks over it).
// Comments and NL tokens are kept, so tools can see every byte; the parser skips them.
// f-strings are always split PEP 701 style (FStringStart, FStringMiddle, the tokens of
// each replacement field, FStringEnd). For target versions before 3.12 the lexer also
// enforces the older rules (no backslash or comment inside a replacement field, no reuse
// of the enclosing quote, at most two levels of nesting) and reports their errors.
//
// f-string tokens, as CPython 3.12's tokenizer makes them:
//   * FStringMiddle is raw literal text. Of each doubled brace ("{{" or "}}") the token keeps
//     the first brace and the second belongs to no token, so every '{' or '}' inside an
//     FStringMiddle stands for one literal brace (or is part of a "\N{...}" escape). One
//     literal run may therefore come as several adjacent FStringMiddle tokens. Empty
//     FStringMiddle tokens are never emitted (e.g. "{x:}" is Colon then RBrace).
//   * The ':' that starts a format spec is a Colon token (even before '=', as in "{x:=5}");
//     the spec follows as FStringMiddle tokens and nested LBrace...RBrace fields.
//   * '!' is Exclamation; "!=" stays NotEqual. "<>" is a NotEqual token spelled "<>".
//
// Errors: lexing stops at the first one; the last token is Error (placed where lexing
// stopped) and LexResult::error holds the message, code and span. span.begin is where
// CPython's SyntaxError.offset points (offset - 1, as a byte offset) and span.end where
// end_offset points when CPython reports a range; otherwise the span is empty. In 3.11 mode
// the f-string content errors point, as 3.11 does, at the token after the string
// concatenation. A UTF-8 BOM is not skipped: the input is decoded text.
#pragma once

#include <optional>
#include <vector>

#include "base/source.h"
#include "diag/diagnostic.h"
#include "lex/token.h"

namespace graphmend {

struct PythonVersion {
  int major = 3;
  int minor = 11;
  bool at_least(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
};

struct LexOptions {
  PythonVersion version;
};

struct LexResult {
  std::vector<Token> tokens;        // always ends with EndMarker or Error
  std::optional<Diagnostic> error;  // set when tokens ends with Error
};

LexResult lex(const SourceText& source, const LexOptions& options = {});

}  // namespace graphmend
