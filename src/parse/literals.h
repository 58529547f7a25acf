// Decoding of literal tokens into values, exactly as CPython does it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ast/ast.h"
#include "base/arena.h"

namespace graphmend {

struct LiteralError {
  uint32_t offset;  // byte offset in the source where the problem is
  std::string message;
};

// A string literal's prefix letters, lower-cased ("", "r", "b", "rb", "u", "f", "rf", ...).
struct StringPrefix {
  bool raw = false;
  bool bytes = false;
  bool unicode = false;  // 'u': Constant.kind == "u"
  bool format = false;
};
StringPrefix parse_string_prefix(std::string_view prefix);

// Decodes the body (between the quotes) of a str or bytes literal, or an FStringMiddle
// (with `{{`/`}}` already split out by the caller), into UTF-8 (str) or raw bytes.
// Returns the error for an invalid escape such as a truncated \x or an unknown \N name.
std::optional<LiteralError> decode_string_body(std::string_view body, uint32_t body_offset,
                                               const StringPrefix& prefix, std::string& out);

// Parses a Number token's text ("0x_1F", "1_000.5e-3", "3j") into a ConstantValue.
// Int text is kept (underscores removed); Float/Complex values are parsed as CPython does.
std::optional<LiteralError> parse_number(std::string_view token_text, uint32_t token_offset,
                                         Arena& arena, ast::ConstantValue& out);

}  // namespace graphmend
