// The lexer: CPython's tokenizer, byte for byte, for the grammar of a chosen Python version.
//
// It turns the whole input into a token vector up front (the parser backtracks over it).
// Comments and NL tokens are kept, so tools can see every byte; the parser skips them.
// f-strings are always split PEP 701 style (FStringStart, FStringMiddle, the tokens of
// each replacement field, FStringEnd). For target versions before 3.12 the lexer also
// enforces the older rules (no backslash or comment inside a replacement field, no reuse
// of the enclosing quote, at most two levels of nesting) and reports their errors.
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
