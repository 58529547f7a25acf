// Tokens: a kind and a byte range. Line and column come from SourceText on demand.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/source.h"

namespace graphmend {

enum class TokenKind : uint8_t {
#define TOKEN(kind) kind,
#define OPERATOR(kind, text) kind,
#define KEYWORD(word) Kw_##word,
#include "lex/tokens.def"
};

struct Token {
  TokenKind kind = TokenKind::EndMarker;
  uint32_t begin = 0;  // byte offset of the first byte
  uint32_t end = 0;    // byte offset one past the last byte (== begin for Indent/Dedent/EndMarker)

  Span span() const { return {begin, end}; }
  std::string_view text(std::string_view source) const { return source.substr(begin, end - begin); }
};

// "Name", "LPar", "Kw_if", ...
const char* token_kind_name(TokenKind kind);
// The spelling of an operator or keyword ("(", "if"); nullptr for other kinds.
const char* token_kind_text(TokenKind kind);
// Comments, NL and the trivia the parser never sees.
inline bool is_trivia(TokenKind kind) {
  return kind == TokenKind::Comment || kind == TokenKind::NL;
}

}  // namespace graphmend
