// ast.dump for our AST, driven by nodes.def: one generic switch prints every node kind the way
// Lib/ast.py's dump() does (3.11 and 3.12 print the same format; only the fields differ).
#include "ast/dump.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include "base/unicode.h"

namespace graphmend {
namespace {

using ast::ConstantValue;

constexpr char kHexDigits[] = "0123456789abcdef";

void append_hex(std::string& out, uint32_t value, int digits) {
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4)
    out.push_back(kHexDigits[(value >> shift) & 0xF]);
}

// The quote Python's repr picks: ' unless the text has ' and no ".
char repr_quote(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  return has_single && !has_double ? '"' : '\'';
}

// Escapes shared by str and bytes repr for one ASCII character; false if none applies.
bool append_ascii_escape(std::string& out, unsigned char c, char quote) {
  switch (c) {
    case '\\':
      out += "\\\\";
      return true;
    case '\t':
      out += "\\t";
      return true;
    case '\n':
      out += "\\n";
      return true;
    case '\r':
      out += "\\r";
      return true;
    default:
      break;
  }
  if (c == static_cast<unsigned char>(quote)) {
    out.push_back('\\');
    out.push_back(static_cast<char>(c));
    return true;
  }
  if (c < 0x20 || c == 0x7F) {
    out += "\\x";
    append_hex(out, c, 2);
    return true;
  }
  return false;
}

// repr(str) for UTF-8 text (lone surrogates encoded as 3 bytes), as unicode_repr does.
void append_str_repr(std::string& out, std::string_view text) {
  const char quote = repr_quote(text);
  out.push_back(quote);
  size_t pos = 0;
  while (pos < text.size()) {
    const unsigned char byte = static_cast<unsigned char>(text[pos]);
    if (byte < 0x80) {
      ++pos;
      if (!append_ascii_escape(out, byte, quote)) out.push_back(static_cast<char>(byte));
      continue;
    }
    const size_t start = pos;
    char32_t c;
    if (!unicode::decode_utf8(text, &pos, &c, /*allow_surrogates=*/true)) {
      // Not produced by the decoders; show the stray byte rather than stop.
      ++pos;
      out += "\\x";
      append_hex(out, byte, 2);
      continue;
    }
    if (unicode::is_printable(c)) {
      out.append(text.substr(start, pos - start));
    } else if (c <= 0xFF) {
      out += "\\x";
      append_hex(out, c, 2);
    } else if (c <= 0xFFFF) {
      out += "\\u";
      append_hex(out, c, 4);
    } else {
      out += "\\U";
      append_hex(out, c, 8);
    }
  }
  out.push_back(quote);
}

// repr(bytes), as bytes_repr does.
void append_bytes_repr(std::string& out, std::string_view bytes) {
  const char quote = repr_quote(bytes);
  out.push_back('b');
  out.push_back(quote);
  for (char ch : bytes) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (append_ascii_escape(out, c, quote)) continue;
    if (c >= 0x80) {
      out += "\\x";
      append_hex(out, c, 2);
    } else {
      out.push_back(ch);
    }
  }
  out.push_back(quote);
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// Converts an int literal ("0x1F", "0o17", "0b101", "123", underscores already removed) to
// decimal, of any size: little-endian limbs in base 10^9, multiplied up digit by digit.
std::string int_literal_to_decimal(std::string_view text) {
  unsigned base = 10;
  if (text.size() >= 2 && text[0] == '0') {
    const char r = text[1];
    if (r == 'x' || r == 'X') base = 16;
    if (r == 'o' || r == 'O') base = 8;
    if (r == 'b' || r == 'B') base = 2;
    if (base != 10) text.remove_prefix(2);
  }
  constexpr uint32_t kLimb = 1'000'000'000;
  std::vector<uint32_t> limbs;
  for (char c : text) {
    const int digit = digit_value(c);
    if (digit >= static_cast<int>(base)) continue;  // '_' or a stray character
    uint64_t carry = static_cast<uint64_t>(digit);
    for (uint32_t& limb : limbs) {
      const uint64_t value = static_cast<uint64_t>(limb) * base + carry;
      limb = static_cast<uint32_t>(value % kLimb);
      carry = value / kLimb;
    }
    if (carry != 0) limbs.push_back(static_cast<uint32_t>(carry));
  }
  if (limbs.empty()) return "0";
  std::string out = std::to_string(limbs.back());
  char buffer[16];
  for (size_t i = limbs.size() - 1; i-- > 0;) {
    std::snprintf(buffer, sizeof buffer, "%09u", limbs[i]);
    out += buffer;
  }
  return out;
}

// repr(float) (add_dot_0) or the imaginary part of repr(complex) (no ".0"): the shortest
// round-trip digits, in exponent form iff the decimal exponent is < -4 or >= 16.
std::string float_repr(double value, bool add_dot_0) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  const std::string_view sci(buffer, static_cast<size_t>(result.ptr - buffer));
  // sci looks like "-1.2345e+05"
  std::string out;
  size_t i = 0;
  if (sci[i] == '-') {
    out.push_back('-');
    ++i;
  }
  const size_t e_pos = sci.find('e');
  std::string digits;
  for (size_t k = i; k < e_pos; ++k) {
    if (sci[k] != '.') digits.push_back(sci[k]);
  }
  int exponent = 0;
  std::from_chars(sci.data() + e_pos + (sci[e_pos + 1] == '+' ? 2 : 1), sci.data() + sci.size(),
                  exponent);
  const int ndigits = static_cast<int>(digits.size());
  const int decpt = exponent + 1;  // value = 0.digits * 10^decpt
  if (decpt <= -4 || decpt > 16) {
    out.push_back(digits[0]);
    if (ndigits > 1) {
      out.push_back('.');
      out.append(digits, 1);
    }
    out.push_back('e');
    out.push_back(exponent < 0 ? '-' : '+');
    const int magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude < 10) out.push_back('0');
    out += std::to_string(magnitude);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decpt), '0');
    out += digits;
  } else if (decpt >= ndigits) {
    out += digits;
    out.append(static_cast<size_t>(decpt - ndigits), '0');
    if (add_dot_0) out += ".0";
  } else {
    out.append(digits, 0, static_cast<size_t>(decpt));
    out.push_back('.');
    out.append(digits, static_cast<size_t>(decpt));
  }
  return out;
}

// ast.dump recurses once per level and stops at Python's recursion limit (1000), so it has
// no output for deeper trees; the guard only keeps such a tree from exhausting our stack.
constexpr int kMaxDepth = 2000;

class Dumper {
 public:
  Dumper(const SourceText& source, const DumpOptions& options)
      : source_(source), options_(options) {}

  std::string take() { return std::move(out_); }

  void node(const ast::Node* n) {
    if (n == nullptr) {
      out_ += "None";
      return;
    }
    if (depth_ >= kMaxDepth) {
      out_ += "...";
      return;
    }
    ++depth_;
    out_ += ast::kind_name(n->kind);
    out_.push_back('(');
    first_ = true;
    fields(n);
    if (options_.include_attributes && ast::kind_has_position(n->kind)) positions(n);
    out_.push_back(')');
    first_ = false;
    --depth_;
  }

 private:
  // Starts "name=" (with ", " before every field but the first of a node).
  void key(const char* name) {
    if (!first_) out_ += ", ";
    first_ = false;
    out_ += name;
    out_.push_back('=');
  }

  template <class T>
  void node_list(const ast::Seq<T*>& items) {
    out_.push_back('[');
    for (uint32_t i = 0; i < items.size; ++i) {
      if (i > 0) out_ += ", ";
      node(items[i]);
    }
    out_.push_back(']');
  }

  void ident_list(const ast::Seq<std::string_view>& items) {
    out_.push_back('[');
    for (uint32_t i = 0; i < items.size; ++i) {
      if (i > 0) out_ += ", ";
      append_str_repr(out_, items[i]);
    }
    out_.push_back(']');
  }

  template <class E>
  void enum_value(E value) {
    out_ += ast::enum_name(value);
    out_ += "()";
  }

  template <class E>
  void enum_list(const ast::Seq<E>& items) {
    out_.push_back('[');
    for (uint32_t i = 0; i < items.size; ++i) {
      if (i > 0) out_ += ", ";
      enum_value(items[i]);
    }
    out_.push_back(']');
  }

  void positions(const ast::Node* n) {
    const LineCol begin = source_.line_col(n->begin);
    const LineCol end = source_.line_col(n->end);
    key("lineno");
    out_ += std::to_string(begin.line);
    key("col_offset");
    out_ += std::to_string(begin.column);
    key("end_lineno");
    out_ += std::to_string(end.line);
    key("end_col_offset");
    out_ += std::to_string(end.column);
  }

  void fields(const ast::Node* n);

  const SourceText& source_;
  const DumpOptions& options_;
  std::string out_;
  bool first_ = true;
  int depth_ = 0;
};

// Each field macro prints one field of `x` (the node cast to its struct). Optional fields
// that are None are left out, as ast.dump leaves out None values of `?` fields.
void Dumper::fields(const ast::Node* n) {
  switch (n->kind) {
#define F_NODE(T, name) \
  key(#name);           \
  node(x->name);
#define F_OPT(T, name) \
  if (x->name) {       \
    key(#name);        \
    node(x->name);     \
  }
#define F_SEQ(T, name) \
  key(#name);          \
  node_list(x->name);
#define F_OPT_SEQ(T, name) F_SEQ(T, name)
#define F_SEQ_SINCE(minor, T, name)          \
  if (options_.version.at_least(3, minor)) { \
    F_SEQ(T, name)                           \
  }
#define F_IDENT(name) \
  key(#name);         \
  append_str_repr(out_, x->name);
#define F_OPT_IDENT(name)           \
  if (!x->name.empty()) {           \
    key(#name);                     \
    append_str_repr(out_, x->name); \
  }
#define F_OPT_STR(name) F_OPT_IDENT(name)
#define F_IDENTS(name) \
  key(#name);          \
  ident_list(x->name);
#define F_CONST(name) \
  key(#name);         \
  out_ += constant_repr(x->name);
#define F_INT(name) \
  key(#name);       \
  out_ += std::to_string(x->name);
#define F_ENUM(E, name) \
  key(#name);           \
  enum_value(x->name);
#define F_ENUM_SEQ(E, name) \
  key(#name);               \
  enum_list(x->name);
#define AST_NODE(cls, category, positioned, fields)                   \
  case ast::Kind::cls: {                                              \
    [[maybe_unused]] const auto* x = static_cast<const ast::cls*>(n); \
    fields break;                                                     \
  }
#include "ast/nodes.def"
#undef F_NODE
#undef F_OPT
#undef F_SEQ
#undef F_OPT_SEQ
#undef F_SEQ_SINCE
#undef F_IDENT
#undef F_OPT_IDENT
#undef F_OPT_STR
#undef F_IDENTS
#undef F_CONST
#undef F_INT
#undef F_ENUM
#undef F_ENUM_SEQ
  }
}

}  // namespace

std::string dump_ast(const ast::Node* root, const SourceText& source, const DumpOptions& options) {
  Dumper dumper(source, options);
  dumper.node(root);
  return dumper.take();
}

std::string constant_repr(const ConstantValue& value) {
  using Type = ConstantValue::Type;
  std::string out;
  switch (value.type) {
    case Type::None:
      return "None";
    case Type::True:
      return "True";
    case Type::False:
      return "False";
    case Type::Ellipsis:
      return "Ellipsis";
    case Type::Int:
      return int_literal_to_decimal(value.text);
    case Type::Float:
      return float_repr(value.number, /*add_dot_0=*/true);
    case Type::Complex:
      return float_repr(value.number, /*add_dot_0=*/false) + "j";
    case Type::Str:
      append_str_repr(out, value.text);
      return out;
    case Type::Bytes:
      append_bytes_repr(out, value.text);
      return out;
  }
  return out;
}

}  // namespace graphmend
