// Placeholder: replaced by the generated tables and UTF-8 helpers.
#include "base/unicode.h"

#include <cctype>

namespace graphmend::unicode {

bool is_xid_start(char32_t c) { return c == '_' || (c < 128 && std::isalpha(static_cast<int>(c))); }
bool is_xid_continue(char32_t c) { return is_xid_start(c) || (c >= '0' && c <= '9'); }
bool is_printable(char32_t c) { return c >= 32 && c != 127; }
bool decode_utf8(std::string_view text, size_t* pos, char32_t* out, bool) {
  if (*pos >= text.size()) return false;
  *out = static_cast<unsigned char>(text[(*pos)++]);
  return true;
}
void append_utf8(std::string& out, char32_t c) { out.push_back(static_cast<char>(c)); }
size_t find_invalid_utf8(std::string_view) { return std::string_view::npos; }
void set_hooks(NameLookup, NfkcNormalize) {}
bool lookup_name(std::string_view, char32_t*) { return false; }
std::string nfkc(std::string_view identifier) { return std::string(identifier); }

}  // namespace graphmend::unicode
