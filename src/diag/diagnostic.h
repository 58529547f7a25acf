// Diagnostics are values: a stable code, a severity, a byte range and a message.
// The core never throws across the binding; every failure becomes one of these.
#pragma once

#include <string>

#include "base/source.h"

namespace graphmend {

enum class Severity : uint8_t { Error, Warning, Note };

struct Diagnostic {
  std::string code;  // stable, e.g. "GM001"
  Severity severity = Severity::Error;
  Span span;
  std::string message;
};

// Codes of the front end. Codes are never reused for another meaning.
namespace codes {
inline constexpr const char* kSyntaxError = "GM001";       // the parser rejects the input
inline constexpr const char* kTokenizeError = "GM002";     // the lexer rejects the input
inline constexpr const char* kIndentationError = "GM003";  // IndentationError / TabError
inline constexpr const char* kEncodingError = "GM004";     // input is not valid UTF-8, or has a NUL
}  // namespace codes

}  // namespace graphmend
