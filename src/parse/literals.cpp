// Placeholder: replaced by literal decoding.
#include "parse/literals.h"

namespace graphmend {

StringPrefix parse_string_prefix(std::string_view) { return {}; }

std::optional<LiteralError> decode_string_body(std::string_view body, uint32_t, const StringPrefix&,
                                               std::string& out) {
  out.assign(body);
  return std::nullopt;
}

std::optional<LiteralError> parse_number(std::string_view text, uint32_t, Arena& arena,
                                         ast::ConstantValue& out) {
  out.type = ast::ConstantValue::Type::Int;
  out.text = arena.copy(text);
  return std::nullopt;
}

}  // namespace graphmend
