// Unicode facts the front end needs, matching the running CPython's unicodedata.
//
// Character classes come from tables generated at build time from the Python that the
// package is built for (tools/gen_unicode_tables.py). Name lookup ("\N{...}") and NFKC
// normalisation of non-ASCII identifiers need large tables the core does not carry: the
// binding installs hooks that call Python's unicodedata. Without hooks, names resolve to
// U+FFFD and identifiers are left as written.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace graphmend::unicode {

bool is_xid_start(char32_t c);     // may start an identifier (or is '_')
bool is_xid_continue(char32_t c);  // may continue an identifier
bool is_printable(char32_t c);     // str.isprintable() for one character (repr keeps it as is)

// Decodes one UTF-8 sequence at text[*pos]; advances *pos. Returns false (and leaves *pos)
// on a malformed sequence. Surrogates (ED A0..BF xx) are accepted only when
// allow_surrogates, for strings decoded from \ud800-style escapes.
bool decode_utf8(std::string_view text, size_t* pos, char32_t* out, bool allow_surrogates = false);
void append_utf8(std::string& out, char32_t c);  // surrogates are written as 3 bytes
// Index of the first byte that does not start a valid UTF-8 sequence; npos when all valid.
size_t find_invalid_utf8(std::string_view text);

using NameLookup = bool (*)(std::string_view name, char32_t* out);
using NfkcNormalize = bool (*)(std::string_view text, std::string* out);
void set_hooks(NameLookup lookup, NfkcNormalize normalize);
bool lookup_name(std::string_view name, char32_t* out);
std::string nfkc(std::string_view identifier);

}  // namespace graphmend::unicode
