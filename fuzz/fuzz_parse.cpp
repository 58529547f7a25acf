// libFuzzer target: arbitrary bytes through the lexer, the parser and the dumper, in both
// version modes. Any crash, sanitizer report, leak or hang is a bug: the core must handle
// every byte string.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ast/dump.h"
#include "base/arena.h"
#include "base/source.h"
#include "parse/parser.h"

namespace {

void parse_and_dump(const std::string& text, int minor) {
  using namespace graphmend;
  SourceText source(text);
  Arena arena;
  PythonVersion version{3, minor};
  ParseResult result = parse_module(source, arena, ParseOptions{version});
  // Contract of parse_module: exactly one of a module and an error.
  if ((result.module == nullptr) == !result.error.has_value()) __builtin_trap();
  if (result.module != nullptr) {
    for (bool attributes : {false, true}) {
      std::string dump = dump_ast(result.module, source, DumpOptions{attributes, version});
      if (dump.empty()) __builtin_trap();
    }
    return;
  }
  // What the binding does with an error: map its span to lines and columns.
  const Span& span = result.error->span;
  if (span.begin > source.size()) __builtin_trap();
  LineCol start = source.line_col(span.begin);
  source.line_text(start.line);
  if (span.end >= span.begin && span.end <= source.size()) source.line_col(span.end);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  parse_and_dump(text, 11);
  parse_and_dump(text, 12);
  return 0;
}
