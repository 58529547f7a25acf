#include "lex/token.h"

namespace graphmend {

const char* token_kind_name(TokenKind kind) {
  switch (kind) {
#define TOKEN(k)     \
  case TokenKind::k: \
    return #k;
#define OPERATOR(k, text) \
  case TokenKind::k:      \
    return #k;
#define KEYWORD(word)        \
  case TokenKind::Kw_##word: \
    return "Kw_" #word;
#include "lex/tokens.def"
  }
  return "?";
}

const char* token_kind_text(TokenKind kind) {
  switch (kind) {
#define OPERATOR(k, text) \
  case TokenKind::k:      \
    return text;
#define KEYWORD(word)        \
  case TokenKind::Kw_##word: \
    return #word;
#include "lex/tokens.def"
    default:
      return nullptr;
  }
}

}  // namespace graphmend
