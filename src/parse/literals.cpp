// Decoding of string, bytes and number literals, following CPython 3.11/3.12:
// Parser/string_parser.c (decode_unicode_with_escapes), Objects/unicodeobject.c
// (_PyUnicode_DecodeUnicodeEscapeInternal), Objects/bytesobject.c (_PyBytes_DecodeEscape) and
// Parser/pegen.c (parsenumber).
#include "parse/literals.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "base/unicode.h"

namespace graphmend {
namespace {

using ast::ConstantValue;

// CPython refuses to convert decimal integer literals longer than this (sys.int_info).
constexpr size_t kMaxDecimalDigits = 4300;

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_octal_digit(char c) { return c >= '0' && c <= '7'; }

bool is_ascii(char c) { return static_cast<unsigned char>(c) < 0x80; }

// The value of a one-letter escape shared by str and bytes (\n, \t, ...); -1 if none.
int simple_escape_value(char c) {
  switch (c) {
    case '\\':
      return '\\';
    case '\'':
      return '\'';
    case '"':
      return '"';
    case 'a':
      return '\a';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'v':
      return '\v';
    default:
      return -1;
  }
}

// Length of the line break starting at body[i] ("\r\n" is 2), or 0 if there is none.
size_t line_break_length(std::string_view body, size_t i) {
  if (body[i] == '\n') return 1;
  if (body[i] != '\r') return 0;
  return i + 1 < body.size() && body[i + 1] == '\n' ? 2 : 1;
}

// Index of body[index] once line breaks are translated to "\n", as CPython counts.
size_t translated_index(std::string_view body, size_t index) {
  size_t count = 0;
  for (size_t i = 0; i < index && i < body.size(); ++count) {
    size_t brk = line_break_length(body, i);
    i += brk == 2 ? 2 : 1;
  }
  return count;
}

// CPython decodes a non-raw str by first rewriting it into an ASCII buffer (each non-ASCII
// character becomes "\UXXXXXXXX", a backslash before one becomes "\u005c") and reports
// 'unicodeescape' error positions in that buffer. Counts the buffer length for body[from, to),
// where `from` is not inside an escape pair.
size_t escape_buffer_units(std::string_view body, size_t from, size_t to) {
  size_t units = 0;
  size_t i = from;
  const auto ascii_step = [&] {  // one ASCII char; "\r\n" is one "\n"
    size_t brk = line_break_length(body, i);
    i += brk == 2 ? 2 : 1;
    ++units;
  };
  while (i < to) {
    if (body[i] == '\\') {
      ++i;
      ++units;
      if (i >= to) {
        if (i >= body.size()) units += 5;
        continue;
      }
      if (!is_ascii(body[i])) {
        units += 5;
      } else {
        ascii_step();
        continue;
      }
    }
    if (i < to && !is_ascii(body[i])) {
      char32_t c;
      if (!unicode::decode_utf8(body, &i, &c)) ++i;
      units += 10;
    } else if (i < to) {
      ascii_step();
    }
  }
  return units;
}

LiteralError unicode_escape_error(std::string_view body, uint32_t body_offset, size_t start,
                                  size_t end, const char* reason) {
  const size_t first = escape_buffer_units(body, 0, start);
  const size_t last = first + escape_buffer_units(body, start, end) - 1;
  char buffer[160];
  std::snprintf(buffer, sizeof buffer,
                "(unicode error) 'unicodeescape' codec can't decode bytes in position %zu-%zu: %s",
                first, last, reason);
  return {body_offset + static_cast<uint32_t>(start), buffer};
}

LiteralError invalid_utf8_error(std::string_view body, uint32_t body_offset, size_t index) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer,
                "(unicode error) 'utf-8' codec can't decode byte 0x%02x in position %zu: "
                "invalid start byte",
                static_cast<unsigned char>(body[index]), translated_index(body, index));
  return {body_offset + static_cast<uint32_t>(index), buffer};
}

// Copies the valid UTF-8 character at body[*i] to out; false if it is malformed.
bool copy_utf8_char(std::string_view body, size_t* i, std::string& out) {
  const size_t start = *i;
  char32_t c;
  if (!unicode::decode_utf8(body, i, &c)) return false;
  out.append(body.substr(start, *i - start));
  return true;
}

// The length of the run at `i` that decodes to itself: ASCII other than '\r' (a line
// break to normalise) and, where escapes count, other than a backslash. Copied in bulk:
// docstrings are most of a library's string bytes.
size_t verbatim_run(std::string_view body, size_t i, bool escapes) {
  size_t j = i;
  for (; j < body.size(); ++j) {
    char c = body[j];
    if (!is_ascii(c) || c == '\r' || (escapes && c == '\\')) break;
  }
  return j - i;
}

// Raw str: the text as written, with line breaks translated.
std::optional<LiteralError> decode_raw_str(std::string_view body, uint32_t body_offset,
                                           std::string& out) {
  for (size_t i = 0; i < body.size();) {
    if (size_t run = verbatim_run(body, i, false)) {
      out.append(body.substr(i, run));
      i += run;
    } else if (size_t brk = line_break_length(body, i)) {  // '\r'
      out.push_back('\n');
      i += brk;
    } else if (!copy_utf8_char(body, &i, out)) {  // past the run: not ASCII
      return invalid_utf8_error(body, body_offset, i);
    }
  }
  return std::nullopt;
}

// Non-raw str: the 'unicodeescape' codec.
// After a backslash and `e`: a backslash-newline is a line continuation inside the
// literal (nothing is decoded); `*i` then skips the "\n" of a "\r\n".
bool skip_line_continuation(char e, std::string_view body, size_t* i) {
  if (e == '\r' && *i < body.size() && body[*i] == '\n') ++*i;
  return e == '\n' || e == '\r';
}

// An octal escape: the digit `e` and up to two more (0 to 0o777).
unsigned read_octal(char e, std::string_view body, size_t* i) {
  unsigned value = static_cast<unsigned>(e - '0');
  for (int extra = 0; extra < 2 && *i < body.size() && is_octal_digit(body[*i]); ++extra) {
    value = value * 8 + static_cast<unsigned>(body[(*i)++] - '0');
  }
  return value;
}

std::optional<LiteralError> decode_str_escapes(std::string_view body, uint32_t body_offset,
                                               std::string& out) {
  const size_t n = body.size();
  size_t i = 0;
  while (i < n) {
    if (size_t run = verbatim_run(body, i, true)) {
      out.append(body.substr(i, run));
      i += run;
      continue;
    }
    const char c = body[i];
    if (size_t brk = line_break_length(body, i)) {
      out.push_back('\n');
      i += brk;
      continue;
    }
    if (!is_ascii(c)) {
      if (!copy_utf8_char(body, &i, out)) return invalid_utf8_error(body, body_offset, i);
      continue;
    }
    // Past the verbatim run and a line break, an ASCII character is a backslash.
    const size_t start = i++;
    if (i >= n) {  // CPython's rewrite turns a trailing backslash into "\u005c"
      out.push_back('\\');
      continue;
    }
    const char e = body[i++];
    if (int value = simple_escape_value(e); value >= 0) {
      out.push_back(static_cast<char>(value));
      continue;
    }
    if (skip_line_continuation(e, body, &i)) continue;
    if (is_octal_digit(e)) {
      unicode::append_utf8(out, read_octal(e, body, &i));  // up to 0o777; > 0o377 only warns
      continue;
    }
    switch (e) {
      case 'x':
      case 'u':
      case 'U': {
        const int count = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        const char* reason = e == 'x'   ? "truncated \\xXX escape"
                             : e == 'u' ? "truncated \\uXXXX escape"
                                        : "truncated \\UXXXXXXXX escape";
        uint32_t value = 0;
        for (int k = 0; k < count; ++k, ++i) {
          const int digit = i < n ? hex_digit_value(body[i]) : -1;
          if (digit < 0) return unicode_escape_error(body, body_offset, start, i, reason);
          value = value * 16 + static_cast<uint32_t>(digit);
        }
        if (value > 0x10FFFF) {
          return unicode_escape_error(body, body_offset, start, i, "illegal Unicode character");
        }
        unicode::append_utf8(out, value);
        break;
      }
      case 'N': {
        const char* reason = "malformed \\N character escape";
        if (i < n && body[i] == '{') {
          const size_t name_start = ++i;
          while (i < n && body[i] != '}') ++i;
          if (i < n && i > name_start) {
            const std::string_view name = body.substr(name_start, i - name_start);
            ++i;
            char32_t value;
            if (unicode::lookup_name(name, &value) && value <= 0x10FFFF) {
              unicode::append_utf8(out, value);
              break;
            }
            reason = "unknown Unicode character name";
          }
        }
        return unicode_escape_error(body, body_offset, start, i, reason);
      }
      default:  // unknown escape (CPython only warns): keep the backslash and the character
        out.push_back('\\');
        --i;
        break;
    }
  }
  return std::nullopt;
}

// bytes: ASCII only; escapes per _PyBytes_DecodeEscape unless raw.
std::optional<LiteralError> decode_bytes(std::string_view body, uint32_t body_offset, bool raw,
                                         std::string& out) {
  for (size_t i = 0; i < body.size(); ++i) {
    if (!is_ascii(body[i])) {
      return LiteralError{body_offset + static_cast<uint32_t>(i),
                          "bytes can only contain ASCII literal characters"};
    }
  }
  const size_t n = body.size();
  size_t i = 0;
  while (i < n) {
    if (size_t brk = line_break_length(body, i)) {
      out.push_back('\n');
      i += brk;
      continue;
    }
    const char c = body[i];
    if (raw || c != '\\') {
      out.push_back(c);
      ++i;
      continue;
    }
    const size_t start = i++;
    if (i >= n) {
      return LiteralError{body_offset + static_cast<uint32_t>(start),
                          "(value error) Trailing \\ in string"};
    }
    const char e = body[i++];
    if (int value = simple_escape_value(e); value >= 0) {
      out.push_back(static_cast<char>(value));
      continue;
    }
    if (skip_line_continuation(e, body, &i)) continue;
    if (is_octal_digit(e)) {
      out.push_back(static_cast<char>(read_octal(e, body, &i) & 0xFF));  // > 0o377 wraps
      continue;
    }
    switch (e) {
      case 'x': {
        const int high = i < n ? hex_digit_value(body[i]) : -1;
        const int low = i + 1 < n ? hex_digit_value(body[i + 1]) : -1;
        if (high < 0 || low < 0) {
          char buffer[96];
          std::snprintf(buffer, sizeof buffer, "(value error) invalid \\x escape at position %zu",
                        translated_index(body, start));
          return LiteralError{body_offset + static_cast<uint32_t>(start), buffer};
        }
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        break;
      }
      default:  // unknown escape, including \u \U \N: kept as written
        out.push_back('\\');
        --i;
        break;
    }
  }
  return std::nullopt;
}

bool is_imaginary_suffix(char c) { return c == 'j' || c == 'J'; }

bool has_radix_prefix(std::string_view text) {
  if (text.size() < 2 || text[0] != '0') return false;
  const char r = text[1];
  return r == 'x' || r == 'X' || r == 'o' || r == 'O' || r == 'b' || r == 'B';
}

// Whether a decimal float literal whose value std::from_chars could not represent is too
// large (-> inf) rather than too small (-> 0.0): compares the decimal exponent of its first
// significant digit with zero.
bool decimal_overflows(std::string_view text) {
  long long exponent = 0;
  size_t mantissa_end = text.find_first_of("eE");
  if (mantissa_end != std::string_view::npos) {
    std::string_view exp_text = text.substr(mantissa_end + 1);
    bool negative = !exp_text.empty() && exp_text[0] == '-';
    if (!exp_text.empty() && (exp_text[0] == '-' || exp_text[0] == '+')) exp_text.remove_prefix(1);
    for (char d : exp_text) {
      if (exponent < 1'000'000'000) exponent = exponent * 10 + (d - '0');
    }
    if (negative) exponent = -exponent;
  } else {
    mantissa_end = text.size();
  }
  const std::string_view mantissa = text.substr(0, mantissa_end);
  const size_t point = std::min(mantissa.find('.'), mantissa.size());
  const size_t first_digit = mantissa.find_first_of("123456789");
  if (first_digit == std::string_view::npos) return false;
  // The first significant digit has weight 10^(position relative to the point).
  const long long weight = first_digit < point ? static_cast<long long>(point - first_digit - 1)
                                               : -static_cast<long long>(first_digit - point);
  return exponent + weight > 0;
}

// Parses a decimal float literal (no underscores, no sign) as CPython's
// PyOS_string_to_double does: correctly rounded, overflowing to inf.
bool parse_double(std::string_view text, double* out) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ptr != text.data() + text.size()) return false;
  if (ec == std::errc::result_out_of_range) {
    value = decimal_overflows(text) ? std::numeric_limits<double>::infinity() : 0.0;
  } else if (ec != std::errc()) {
    return false;
  }
  *out = value;
  return true;
}

}  // namespace

StringPrefix parse_string_prefix(std::string_view prefix) {
  StringPrefix result;
  for (char c : prefix) {
    switch (c) {
      case 'r':
      case 'R':
        result.raw = true;
        break;
      case 'b':
      case 'B':
        result.bytes = true;
        break;
      case 'u':
      case 'U':
        result.unicode = true;
        break;
      case 'f':
      case 'F':
        result.format = true;
        break;
      default:
        break;
    }
  }
  return result;
}

std::optional<LiteralError> decode_string_body(std::string_view body, uint32_t body_offset,
                                               const StringPrefix& prefix, std::string& out) {
  out.clear();
  out.reserve(body.size());
  if (prefix.bytes) return decode_bytes(body, body_offset, prefix.raw, out);
  if (prefix.raw) return decode_raw_str(body, body_offset, out);
  return decode_str_escapes(body, body_offset, out);
}

std::optional<LiteralError> parse_number(std::string_view token_text, uint32_t token_offset,
                                         Arena& arena, ConstantValue& out) {
  std::string text;
  text.reserve(token_text.size());
  for (char c : token_text) {
    if (c != '_') text.push_back(c);
  }
  const auto invalid = [&] { return LiteralError{token_offset, "invalid number literal"}; };
  if (text.empty()) return invalid();

  if (is_imaginary_suffix(text.back())) {
    double imag;
    if (!parse_double(std::string_view(text).substr(0, text.size() - 1), &imag)) return invalid();
    out.type = ConstantValue::Type::Complex;
    out.number = imag;
    out.text = arena.copy(text);
    return std::nullopt;
  }
  if (has_radix_prefix(text)) {
    out.type = ConstantValue::Type::Int;
    out.text = arena.copy(text);
    return std::nullopt;
  }
  if (text.find_first_of(".eE") != std::string::npos) {
    double value;
    if (!parse_double(text, &value)) return invalid();
    out.type = ConstantValue::Type::Float;
    out.number = value;
    out.text = arena.copy(text);
    return std::nullopt;
  }
  for (char c : text) {
    if (c < '0' || c > '9') return invalid();
  }
  // CPython converts a decimal literal starting with 0 (all zeros) without the digit limit.
  if (text[0] != '0' && text.size() > kMaxDecimalDigits) {
    return LiteralError{
        token_offset,
        "Exceeds the limit (4300 digits) for integer string conversion: value has " +
            std::to_string(text.size()) +
            " digits; use sys.set_int_max_str_digits() to increase the limit - Consider "
            "hexadecimal for huge integer literals to avoid decimal conversion limits."};
  }
  out.type = ConstantValue::Type::Int;
  out.text = arena.copy(text);
  return std::nullopt;
}

}  // namespace graphmend
