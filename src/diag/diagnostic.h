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

// Codes of the front end and of the mender's own checks, from codes.def (kSyntaxError,
// kMendedDoesNotParse, ...). The break codes belong to sema::BreakKind.
namespace codes {
#define FRONT_END(name, code, summary) inline constexpr const char* k##name = code;
#define INTERNAL(name, code, summary) inline constexpr const char* k##name = code;
#define NOTE(name, code, summary) inline constexpr const char* k##name = code;
#include "diag/codes.def"

// Every code with its summary, in the order of codes.def (the binding's CODES).
struct CodeInfo {
  const char* code;
  const char* summary;
};
inline constexpr CodeInfo kAll[] = {
#define FRONT_END(name, code, summary) {code, summary},
#define BREAK(kind, code, summary, owner) {code, summary},
#define INTERNAL(name, code, summary) {code, summary},
#define NOTE(name, code, summary) {code, summary},
#include "diag/codes.def"
};
}  // namespace codes

}  // namespace graphmend
