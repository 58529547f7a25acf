// The lexer: a single pass over the bytes, following CPython's Parser/tokenizer.c.
//
// The input always ends in a NUL (std::string guarantees text[size()] == '\0') and
// NUL bytes are rejected up front, so reading s_[p_] with p_ <= n_ is always safe and
// '\0' means end of input. A file that does not end in a line break gets an implicit,
// zero-width one, as CPython adds "\n" to such input.
#include "lex/lexer.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/unicode.h"

namespace graphmend {

namespace {

constexpr int kTabSize = 8;
constexpr int kMaxIndent = 100;       // MAXINDENT
constexpr size_t kMaxLevel = 200;     // MAXLEVEL: nested brackets
constexpr size_t kMaxFStrings = 150;  // MAXFSTRINGLEVEL
constexpr int kMaxExprNesting = 3;    // MAX_EXPR_NESTING

enum : uint8_t { kIdStart = 1, kIdChar = 2, kDigit = 4, kHex = 8 };

struct CharTable {
  uint8_t bits[256] = {};
  constexpr CharTable() {
    for (int c = 0; c < 256; ++c) {
      uint8_t b = 0;
      bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 128;
      bool digit = c >= '0' && c <= '9';
      if (alpha) b |= kIdStart | kIdChar;
      if (digit) b |= kIdChar | kDigit | kHex;
      if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) b |= kHex;
      bits[c] = b;
    }
  }
};
constexpr CharTable kChars;

inline bool has(char c, uint8_t bit) {
  return (kChars.bits[static_cast<unsigned char>(c)] & bit) != 0;
}
inline bool is_digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }

// Hard keywords by spelling; soft keywords stay Name.
TokenKind keyword_or_name(const char* p, size_t len) {
  struct Entry {
    std::string_view word;
    TokenKind kind;
  };
  static constexpr Entry kKeywords[] = {
#define KEYWORD(word) {#word, TokenKind::Kw_##word},
#include "lex/tokens.def"
  };
  // Grouped by first letter: a name is compared with the few keywords that share it.
  static const auto kByFirst = [] {
    std::array<std::vector<Entry>, 128> groups;
    for (const Entry& e : kKeywords) groups[static_cast<unsigned char>(e.word[0])].push_back(e);
    return groups;
  }();
  if (len < 2 || len > 8) return TokenKind::Name;
  auto first = static_cast<unsigned char>(p[0]);
  if (first >= kByFirst.size()) return TokenKind::Name;
  for (const Entry& e : kByFirst[first]) {
    if (e.word.size() == len && std::memcmp(e.word.data(), p, len) == 0) return e.kind;
  }
  return TokenKind::Name;
}

struct Bracket {
  char ch;
  uint32_t offset;
};

// One f-string being lexed (CPython's tokenizer_mode).
struct FMode {
  bool literal = true;  // scanning literal text (TOK_FSTRING_MODE) vs. an expression
  char quote = '"';
  uint8_t quote_size = 1;
  bool raw = false;
  bool in_format_spec = false;
  int curly_depth = 0;         // curly_bracket_depth
  int expr_start_depth = -1;   // curly_bracket_expr_start_depth
  uint32_t start = 0;          // offset of the prefix
  uint32_t end = 0;            // 3.11: offset of the closing quote(s) found by the string scan
  size_t brackets_before = 0;  // brackets open when the f-string started
};

class Lexer {
 public:
  Lexer(const SourceText& source, const LexOptions& options, LexResult& result)
      : source_(source),
        s_(source.text().data()),
        n_(source.size()),
        v311_(!options.version.at_least(3, 12)),
        out_(result.tokens),
        error_(result.error) {}

  void run();

 private:
  // ---------------------------------------------------------------- helpers
  char at(uint32_t i) const { return i < n_ ? s_[i] : '\0'; }
  void emit(TokenKind kind, uint32_t begin, uint32_t end) { out_.push_back({kind, begin, end}); }
  uint32_t line_of(uint32_t offset) const { return source_.line_col(offset).line; }
  // Stops lexing: an Error token over [tb, te) and a diagnostic over [eb, ee).
  bool fail(const char* code, std::string message, uint32_t eb, uint32_t ee, uint32_t tb,
            uint32_t te);
  // The common case: CPython points at one place (SyntaxError.offset - 1), no range.
  bool fail_at(std::string message, uint32_t point) {
    return fail(codes::kTokenizeError, std::move(message), point, point, point, point + 1);
  }
  // An error CPython 3.11 finds while parsing an f-string's content (string_parser.c): it
  // points at the token after the whole string concatenation; errors inside nested
  // f-strings gain one "f-string: " prefix per level.
  bool fstring_error(const std::string& message);
  // Line of the end of input, as CPython counts it for "(detected at line N)".
  uint32_t eof_line() const {
    return line_of(n_ > 0 && (s_[n_ - 1] == '\n' || s_[n_ - 1] == '\r') ? n_ - 1 : n_);
  }
  bool check_input();
  // Finds the closing quote(s) of a str literal whose opening quote is at quote_pos.
  enum class Scan { Closed, LineEnd, Limit };
  Scan scan_string(uint32_t quote_pos, uint32_t limit, uint32_t* end, bool* backslash) const;

  // ---------------------------------------------------------------- modes
  bool normal_step();
  bool fstring_step();
  bool indentation();
  bool continuation(uint32_t backslash);
  bool newline(uint32_t begin, uint32_t end);
  bool name_or_string(uint32_t start);
  bool number(uint32_t start);
  bool string(uint32_t start, uint32_t quote_pos);
  bool fstring_start(uint32_t start, uint32_t quote_pos);
  bool end_of_number(uint32_t start, uint32_t* pos, const char* kind);
  bool decimal_tail(uint32_t start, uint32_t* pos);
  bool open_bracket(char c, uint32_t start);
  bool close_bracket(char c, uint32_t start);
  bool end_of_input();
  bool invalid_identifier(uint32_t start, uint32_t end);
  bool operator_token(char c, uint32_t start);
  uint32_t operator_length(uint32_t q) const;
  // 3.11: inside the expression part of some f-string (where backslashes are forbidden).
  bool in_311_expression() const {
    return v311_ && !modes_.empty() && (modes_.size() > 1 || !modes_.back().literal);
  }
  bool inside_fstring() const { return !modes_.empty(); }
  bool inside_fstring_expr() const {
    return !modes_.empty() && modes_.back().expr_start_depth >= 0;
  }

  const SourceText& source_;
  const char* s_;
  uint32_t n_;
  uint32_t p_ = 0;
  bool v311_;
  std::vector<Token>& out_;
  std::optional<Diagnostic>& error_;

  bool done_ = false;
  bool atbol_ = true;
  bool blank_line_ = false;        // the current physical line holds only whitespace/comment
  bool implicit_newline_ = false;  // the input lacks a final line break: one zero-width \n at n_
  int indent_ = 0;
  int indstack_[kMaxIndent + 1] = {0};
  int altindstack_[kMaxIndent + 1] = {0};
  int pending_ = 0;  // >0: Indents to emit, <0: Dedents
  std::vector<Bracket> brackets_;
  std::vector<FMode> modes_;
};

bool Lexer::fail(const char* code, std::string message, uint32_t eb, uint32_t ee, uint32_t tb,
                 uint32_t te) {
  if (tb > n_) tb = n_;
  if (te < tb) te = tb;
  if (te > n_) te = n_;
  emit(TokenKind::Error, tb, te);
  error_ = Diagnostic{code, Severity::Error, {eb, ee < eb ? eb : ee}, std::move(message)};
  done_ = true;
  return false;
}

// NUL bytes and malformed UTF-8 are rejected before lexing (CPython decodes first).
bool Lexer::check_input() {
  const unsigned char* s = reinterpret_cast<const unsigned char*>(s_);
  uint32_t i = 0;
  while (i < n_) {
    // Fast path: eight ASCII bytes without a NUL.
    if (i + 8 <= n_) {
      uint64_t w;
      std::memcpy(&w, s + i, 8);
      bool high = (w & 0x8080808080808080ULL) != 0;
      bool zero = ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL) != 0;
      if (!high && !zero) {
        i += 8;
        continue;
      }
    }
    unsigned char c = s[i];
    if (c == 0) {
      return fail(codes::kEncodingError, "source code string cannot contain null bytes", i, i, i,
                  i + 1);
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    // A well-formed sequence: lead byte, then 1-3 continuation bytes within the ranges
    // UTF-8 allows (no overlongs, no surrogates, nothing above U+10FFFF).
    uint32_t len = c >= 0xC2 && c <= 0xDF   ? 2
                   : c >= 0xE0 && c <= 0xEF ? 3
                   : c >= 0xF0 && c <= 0xF4 ? 4
                                            : 0;
    const char* why = "invalid start byte";
    bool ok = len != 0;
    for (uint32_t k = 1; ok && k < len; ++k) {
      if (i + k >= n_) {
        ok = false, why = "unexpected end of data";
        break;
      }
      unsigned char cc = s[i + k];
      unsigned char lo = 0x80, hi = 0xBF;
      if (k == 1) {
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
      }
      if (cc < lo || cc > hi) ok = false, why = "invalid continuation byte";
    }
    if (!ok) {
      char buf[128];
      std::snprintf(buf, sizeof buf,
                    "(unicode error) 'utf-8' codec can't decode byte 0x%02x in position 0: %s", c,
                    why);
      return fail(codes::kEncodingError, buf, i, i, i, i + 1);
    }
    i += len;
  }
  return true;
}

void Lexer::run() {
  out_.reserve(n_ / 4 + 16);
  if (!check_input()) return;
  // The input is decoded text, as CPython's for a str: a byte order mark is not skipped
  // (it is an invalid character); callers holding file bytes strip it when decoding.
  implicit_newline_ = n_ > p_ && s_[n_ - 1] != '\n' && s_[n_ - 1] != '\r';
  while (!done_) {
    if (!modes_.empty() && modes_.back().literal) {
      fstring_step();
    } else {
      normal_step();
    }
  }
}

// A backslash at `backslash` followed by a line break: joins the lines.
bool Lexer::continuation(uint32_t backslash) {
  uint32_t q = backslash + 1;
  if (s_[q] == '\r') {
    q += s_[q + 1] == '\n' ? 2 : 1;
  } else if (s_[q] == '\n') {
    ++q;
  } else if (q == n_ && implicit_newline_) {
    implicit_newline_ = false;
  } else {
    return fail_at("unexpected character after line continuation character", backslash + 1);
  }
  if (q >= n_) {
    if (!brackets_.empty()) {
      p_ = n_;
      implicit_newline_ = false;
      return end_of_input();  // "'(' was never closed"
    }
    return fail(codes::kTokenizeError, "unexpected EOF while parsing", backslash + 1, backslash + 1,
                backslash, q);
  }
  p_ = q;
  return true;
}

// Measures the indentation of a new line and queues Indent/Dedent tokens.
bool Lexer::indentation() {
  atbol_ = false;
  int col = 0;
  int altcol = 0;
  int cont_col = 0;
  uint32_t line_begin = p_;
  for (;;) {
    char c = s_[p_];
    if (c == ' ') {
      ++col, ++altcol, ++p_;
    } else if (c == '\t') {
      col = (col / kTabSize + 1) * kTabSize;
      altcol += 1;
      ++p_;
    } else if (c == '\f') {
      col = altcol = 0;
      ++p_;
    } else if (c == '\\') {
      cont_col = cont_col ? cont_col : col;
      if (!continuation(p_)) return false;
    } else {
      break;
    }
  }
  char c = s_[p_];
  blank_line_ = c == '#' || c == '\n' || c == '\r' || (p_ == n_ && implicit_newline_);
  if (blank_line_ || !brackets_.empty()) return true;
  if (cont_col) col = altcol = cont_col;
  if (col == indstack_[indent_]) {
    if (altcol != altindstack_[indent_]) {
      return fail(codes::kIndentationError, "inconsistent use of tabs and spaces in indentation",
                  line_begin, line_begin, line_begin, p_);
    }
  } else if (col > indstack_[indent_]) {
    if (indent_ + 1 >= kMaxIndent) {
      return fail(codes::kIndentationError, "too many levels of indentation", line_begin,
                  line_begin, line_begin, p_);
    }
    if (altcol <= altindstack_[indent_]) {
      return fail(codes::kIndentationError, "inconsistent use of tabs and spaces in indentation",
                  line_begin, line_begin, line_begin, p_);
    }
    ++pending_;
    indstack_[++indent_] = col;
    altindstack_[indent_] = altcol;
  } else {
    while (indent_ > 0 && col < indstack_[indent_]) {
      --pending_;
      --indent_;
    }
    if (col != indstack_[indent_]) {
      // CPython points at the end of the offending line.
      uint32_t eol = p_;
      while (eol < n_ && s_[eol] != '\n' && s_[eol] != '\r') ++eol;
      return fail(codes::kIndentationError, "unindent does not match any outer indentation level",
                  eol, eol, line_begin, p_);
    }
    if (altcol != altindstack_[indent_]) {
      return fail(codes::kIndentationError, "inconsistent use of tabs and spaces in indentation",
                  line_begin, line_begin, line_begin, p_);
    }
  }
  // Indent spans the leading whitespace; Dedents sit at the first token of the line.
  while (pending_ > 0) {
    emit(TokenKind::Indent, line_begin, p_);
    --pending_;
  }
  while (pending_ < 0) {
    emit(TokenKind::Dedent, p_, p_);
    ++pending_;
  }
  return true;
}

// A line break [begin, end) seen by the normal mode.
bool Lexer::newline(uint32_t begin, uint32_t end) {
  atbol_ = true;
  p_ = end;
  if (blank_line_ || !brackets_.empty()) {
    emit(TokenKind::NL, begin, end);
  } else {
    emit(TokenKind::Newline, begin, end);
  }
  blank_line_ = false;
  return true;
}

bool Lexer::end_of_input() {
  if (implicit_newline_) {
    implicit_newline_ = false;
    return newline(n_, n_);
  }
  if (!brackets_.empty()) {
    const Bracket& b = brackets_.back();
    if (v311_ && !modes_.empty()) return fstring_error("f-string: expecting '}'");
    return fail(codes::kTokenizeError, std::string("'") + b.ch + "' was never closed", b.offset,
                b.offset, n_, n_);
  }
  emit(TokenKind::EndMarker, n_, n_);
  done_ = true;
  return true;
}

bool Lexer::normal_step() {
  if (atbol_) {
    if (!indentation()) return false;
  }
again:
  while (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\f') ++p_;
  uint32_t start = p_;
  char c = s_[p_];

  if (c == '#') {
    uint32_t q = p_;
    while (q < n_ && s_[q] != '\n' && s_[q] != '\r') ++q;
    if (inside_fstring() && v311_) {
      return fstring_error("f-string expression part cannot include '#'");
    }
    emit(TokenKind::Comment, start, q);
    p_ = q;
    return true;
  }
  if (v311_ && !modes_.empty()) {
    // 3.11 cuts the expression text at the f-string's closing quote.
    if (p_ >= modes_.back().end) {
      const FMode& m = modes_.back();
      if (m.curly_depth > m.expr_start_depth + 1) {
        // A bracket opened inside the replacement field is still open.
        return fstring_error(std::string("f-string: unmatched '") + brackets_.back().ch + "'");
      }
      return fstring_error("f-string: expecting '}'");
    }
    if (c == '\\') return fstring_error("f-string expression part cannot include a backslash");
  }
  if (p_ >= n_) return end_of_input();

  if (has(c, kIdStart)) return name_or_string(start);
  if (c == '\n') return newline(start, start + 1);
  if (c == '\r') return newline(start, s_[start + 1] == '\n' ? start + 2 : start + 1);
  if (c == '.') {
    if (is_digit(s_[p_ + 1])) return number(start);
    if (s_[p_ + 1] == '.' && s_[p_ + 2] == '.') {
      emit(TokenKind::Ellipsis, start, start + 3);
      p_ = start + 3;
      return true;
    }
    emit(TokenKind::Dot, start, start + 1);
    p_ = start + 1;
    return true;
  }
  if (is_digit(c)) return number(start);
  if (c == '\'' || c == '"') return string(start, start);
  if (c == '\\') {
    if (!continuation(p_)) return false;
    goto again;
  }
  return operator_token(c, start);
}

bool Lexer::operator_token(char c, uint32_t start) {
  char c2 = s_[start + 1];
  char c3 = c2 ? s_[start + 2] : '\0';
  TokenKind kind;
  uint32_t len = 1;
  switch (c) {
    case '(':
    case '[':
    case '{':
      return open_bracket(c, start);
    case ')':
    case ']':
    case '}':
      return close_bracket(c, start);
    case ':':
      if (c2 == '=' && !(inside_fstring_expr() &&
                         modes_.back().curly_depth - 1 == modes_.back().expr_start_depth)) {
        kind = TokenKind::ColonEqual, len = 2;
      } else {
        kind = TokenKind::Colon;
        if (inside_fstring_expr() &&
            modes_.back().curly_depth - 1 == modes_.back().expr_start_depth) {
          // A format spec starts: back to literal scanning.
          modes_.back().literal = true;
          modes_.back().in_format_spec = true;
        }
      }
      break;
    case ',':
      kind = TokenKind::Comma;
      break;
    case ';':
      kind = TokenKind::Semi;
      break;
    case '+':
      kind = c2 == '=' ? (len = 2, TokenKind::PlusEqual) : TokenKind::Plus;
      break;
    case '-':
      kind = c2 == '='   ? (len = 2, TokenKind::MinEqual)
             : c2 == '>' ? (len = 2, TokenKind::RArrow)
                         : TokenKind::Minus;
      break;
    case '*':
      if (c2 == '*') {
        kind = c3 == '=' ? (len = 3, TokenKind::DoubleStarEqual) : (len = 2, TokenKind::DoubleStar);
      } else {
        kind = c2 == '=' ? (len = 2, TokenKind::StarEqual) : TokenKind::Star;
      }
      break;
    case '/':
      if (c2 == '/') {
        kind =
            c3 == '=' ? (len = 3, TokenKind::DoubleSlashEqual) : (len = 2, TokenKind::DoubleSlash);
      } else {
        kind = c2 == '=' ? (len = 2, TokenKind::SlashEqual) : TokenKind::Slash;
      }
      break;
    case '|':
      kind = c2 == '=' ? (len = 2, TokenKind::VBarEqual) : TokenKind::VBar;
      break;
    case '&':
      kind = c2 == '=' ? (len = 2, TokenKind::AmperEqual) : TokenKind::Amper;
      break;
    case '<':
      if (c2 == '<') {
        kind = c3 == '=' ? (len = 3, TokenKind::LeftShiftEqual) : (len = 2, TokenKind::LeftShift);
      } else if (c2 == '=') {
        kind = TokenKind::LessEqual, len = 2;
      } else if (c2 == '>') {
        kind = TokenKind::NotEqual, len = 2;  // "<>": the parser rejects its spelling
      } else {
        kind = TokenKind::Less;
      }
      break;
    case '>':
      if (c2 == '>') {
        kind = c3 == '=' ? (len = 3, TokenKind::RightShiftEqual) : (len = 2, TokenKind::RightShift);
      } else {
        kind = c2 == '=' ? (len = 2, TokenKind::GreaterEqual) : TokenKind::Greater;
      }
      break;
    case '=':
      kind = c2 == '=' ? (len = 2, TokenKind::EqEqual) : TokenKind::Equal;
      break;
    case '%':
      kind = c2 == '=' ? (len = 2, TokenKind::PercentEqual) : TokenKind::Percent;
      break;
    case '~':
      kind = TokenKind::Tilde;
      break;
    case '^':
      kind = c2 == '=' ? (len = 2, TokenKind::CircumflexEqual) : TokenKind::Circumflex;
      break;
    case '@':
      kind = c2 == '=' ? (len = 2, TokenKind::AtEqual) : TokenKind::At;
      break;
    case '!':
      kind = c2 == '=' ? (len = 2, TokenKind::NotEqual) : TokenKind::Exclamation;
      break;
    default: {
      unsigned char u = static_cast<unsigned char>(c);
      if (u < 32 || u == 127) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "invalid non-printable character U+%04X", u);
        return fail_at(buf, start);
      }
      // '$', '?', '`': CPython passes an OP token the parser cannot use.
      return fail(codes::kSyntaxError,
                  v311_ && inside_fstring() ? "f-string: invalid syntax" : "invalid syntax", start,
                  start + 1, start, start + 1);
    }
  }
  emit(kind, start, start + len);
  p_ = start + len;
  return true;
}

bool Lexer::open_bracket(char c, uint32_t start) {
  if (brackets_.size() >= kMaxLevel) {
    return fail_at("too many nested parentheses", start);
  }
  brackets_.push_back({c, start});
  if (inside_fstring()) ++modes_.back().curly_depth;
  emit(c == '('   ? TokenKind::LPar
       : c == '[' ? TokenKind::LSqb
                  : TokenKind::LBrace,
       start, start + 1);
  p_ = start + 1;
  return true;
}

bool Lexer::close_bracket(char c, uint32_t start) {
  if (inside_fstring() && modes_.back().curly_depth == 0 && c == '}') {
    if (v311_) return fstring_error("f-string: single '}' is not allowed");
    return fail_at("f-string: single '}' is not allowed", start);
  }
  if (brackets_.empty()) {
    return fail_at(std::string("unmatched '") + c + "'", start);
  }
  char opening = brackets_.back().ch;
  uint32_t opening_offset = brackets_.back().offset;
  brackets_.pop_back();
  if (!((opening == '(' && c == ')') || (opening == '[' && c == ']') ||
        (opening == '{' && c == '}'))) {
    if (inside_fstring() && opening == '{' &&
        modes_.back().curly_depth - 1 == modes_.back().expr_start_depth) {
      std::string message = std::string("f-string: unmatched '") + c + "'";
      return v311_ ? fstring_error(message) : fail_at(message, start);
    }
    std::string message = std::string("closing parenthesis '") + c +
                          "' does not match opening parenthesis '" + opening + "'";
    uint32_t open_line = line_of(opening_offset);
    if (open_line != line_of(start)) message += " on line " + std::to_string(open_line);
    if (v311_ && inside_fstring()) return fstring_error("f-string: " + message);
    return fail_at(std::move(message), start);
  }
  emit(c == ')'   ? TokenKind::RPar
       : c == ']' ? TokenKind::RSqb
                  : TokenKind::RBrace,
       start, start + 1);
  p_ = start + 1;
  if (inside_fstring()) {
    FMode& m = modes_.back();
    --m.curly_depth;
    if (c == '}' && m.curly_depth == m.expr_start_depth) {
      --m.expr_start_depth;
      m.literal = true;
      m.in_format_spec = false;
    }
  }
  return true;
}

bool Lexer::name_or_string(uint32_t start) {
  // String prefixes: b, r, u, f in the combinations CPython accepts.
  bool saw_b = false, saw_r = false, saw_u = false, saw_f = false;
  uint32_t q = start;
  for (;;) {
    char c = s_[q];
    char lower = static_cast<char>(c | 0x20);
    if (!(saw_b || saw_u || saw_f) && lower == 'b') {
      saw_b = true;
    } else if (!(saw_b || saw_u || saw_r || saw_f) && lower == 'u') {
      saw_u = true;
    } else if (!(saw_r || saw_u) && lower == 'r') {
      saw_r = true;
    } else if (!(saw_f || saw_b || saw_u) && lower == 'f') {
      saw_f = true;
    } else {
      break;
    }
    ++q;
    if (s_[q] == '"' || s_[q] == '\'') {
      // 3.11: a quote at the enclosing f-string's end closes that string instead.
      if (v311_ && !modes_.empty() && q >= modes_.back().end) break;
      return saw_f ? fstring_start(start, q) : string(start, q);
    }
  }
  bool nonascii = false;
  while (has(s_[q], kIdChar)) {
    if (static_cast<unsigned char>(s_[q]) >= 128) nonascii = true;
    ++q;
  }
  if (q > n_) q = n_;
  if (nonascii && !invalid_identifier(start, q)) return false;
  emit(keyword_or_name(s_ + start, q - start), start, q);
  p_ = q;
  return true;
}

// Checks a non-ASCII identifier; reports CPython's error for the first bad character.
bool Lexer::invalid_identifier(uint32_t start, uint32_t end) {
  std::string_view text(s_, n_);
  size_t pos = start;
  bool first = true;
  while (pos < end) {
    size_t char_begin = pos;
    char32_t cp;
    if (!unicode::decode_utf8(text, &pos, &cp)) {
      return fail(codes::kEncodingError, "invalid UTF-8 in identifier", char_begin, char_begin + 1,
                  char_begin, char_begin + 1);
    }
    bool ok = first ? (cp == '_' || unicode::is_xid_start(cp)) : unicode::is_xid_continue(cp);
    first = false;
    if (!ok) {
      char buf[96];
      if (unicode::is_printable(cp)) {
        std::string ch;
        unicode::append_utf8(ch, cp);
        std::snprintf(buf, sizeof buf, "invalid character '%s' (U+%04X)", ch.c_str(),
                      static_cast<unsigned>(cp));
      } else {
        std::snprintf(buf, sizeof buf, "invalid non-printable character U+%04X",
                      static_cast<unsigned>(cp));
      }
      return fail(codes::kTokenizeError, buf, static_cast<uint32_t>(char_begin),
                  static_cast<uint32_t>(char_begin), start, static_cast<uint32_t>(pos));
    }
  }
  return true;
}

// CPython's verify_end_of_number: a number glued to a name is an error, except before the
// keywords that may follow a number in valid code (and, else, for, if, in, is, not, or).
bool Lexer::end_of_number(uint32_t start, uint32_t* pos, const char* kind) {
  uint32_t q = *pos;
  char c = s_[q];
  bool keyword = false;
  switch (c) {
    case 'a':
      keyword = s_[q + 1] == 'n' && s_[q + 2] == 'd';
      break;
    case 'e':
      keyword = s_[q + 1] == 'l' && s_[q + 2] == 's' && s_[q + 3] == 'e';
      break;
    case 'f':
      keyword = s_[q + 1] == 'o' && s_[q + 2] == 'r';
      break;
    case 'i':
      keyword = s_[q + 1] == 'f' || s_[q + 1] == 'n' || s_[q + 1] == 's';
      break;
    case 'o':
      keyword = s_[q + 1] == 'r';
      break;
    case 'n':
      keyword = s_[q + 1] == 'o' && s_[q + 2] == 't';
      break;
    default:
      break;
  }
  if (keyword) return true;  // CPython warns (DeprecationWarning/SyntaxWarning) and goes on
  if (static_cast<unsigned char>(c) < 128 && has(c, kIdChar)) {
    return fail(codes::kTokenizeError, std::string("invalid ") + kind + " literal", q - 1, q - 1,
                start, q + 1);
  }
  return true;
}

bool Lexer::decimal_tail(uint32_t, uint32_t* pos) {
  uint32_t q = *pos;
  for (;;) {
    while (is_digit(s_[q])) ++q;
    if (s_[q] != '_') break;
    ++q;
    if (!is_digit(s_[q])) return fail_at("invalid decimal literal", q - 1);
  }
  *pos = q;
  return true;
}

bool Lexer::number(uint32_t start) {
  uint32_t q = start;
  char c = s_[q];
  if (c == '.') goto fraction;
  if (c == '0') {
    c = s_[q + 1];
    char lower = static_cast<char>(c | 0x20);
    if (lower == 'x' || lower == 'o' || lower == 'b') {
      q += 2;
      const char* kind = lower == 'x' ? "hexadecimal" : lower == 'o' ? "octal" : "binary";
      auto digit_ok = [lower](char d) {
        if (lower == 'x') return has(d, kHex);
        if (lower == 'o') return d >= '0' && d <= '7';
        return d == '0' || d == '1';
      };
      do {
        if (s_[q] == '_') ++q;
        if (!digit_ok(s_[q])) {
          if (lower != 'x' && is_digit(s_[q])) {
            return fail_at(std::string("invalid digit '") + s_[q] + "' in " + kind + " literal", q);
          }
          return fail_at(std::string("invalid ") + kind + " literal", q - 1);
        }
        while (digit_ok(s_[q])) ++q;
      } while (s_[q] == '_');
      if (lower != 'x' && is_digit(s_[q])) {
        return fail_at(std::string("invalid digit '") + s_[q] + "' in " + kind + " literal", q);
      }
      if (!end_of_number(start, &q, kind)) return false;
      emit(TokenKind::Number, start, q);
      p_ = q;
      return true;
    }
    // Zeros, maybe an old-style octal, a float or imaginary.
    ++q;
    bool nonzero = false;
    for (;;) {
      if (s_[q] == '_') {
        ++q;
        if (!is_digit(s_[q])) return fail_at("invalid decimal literal", q - 1);
      }
      if (s_[q] != '0') break;
      ++q;
    }
    uint32_t zeros_end = q;
    if (is_digit(s_[q])) {
      nonzero = true;
      if (!decimal_tail(start, &q)) return false;
    }
    c = s_[q];
    if (c == '.') {
      ++q;
      goto fraction_digits;
    }
    if (c == 'e' || c == 'E') goto exponent;
    if (c == 'j' || c == 'J') goto imaginary;
    if (nonzero) {
      return fail(codes::kTokenizeError,
                  "leading zeros in decimal integer literals are not permitted; use an 0o "
                  "prefix for octal integers",
                  start, zeros_end, start, q);
    }
    if (!end_of_number(start, &q, "decimal")) return false;
    emit(TokenKind::Number, start, q);
    p_ = q;
    return true;
  }
  // Decimal.
  if (!decimal_tail(start, &q)) return false;
  if (s_[q] == '.') {
    ++q;
    goto fraction_digits;
  }
  goto after_fraction;

fraction:
  ++q;  // the '.'
fraction_digits:
  if (is_digit(s_[q]) && !decimal_tail(start, &q)) return false;
after_fraction:
  c = s_[q];
  if (c == 'e' || c == 'E') {
  exponent:
    uint32_t e = q;
    ++q;
    if (s_[q] == '+' || s_[q] == '-') {
      ++q;
      if (!is_digit(s_[q])) return fail_at("invalid decimal literal", q - 1);
    } else if (!is_digit(s_[q])) {
      // "1e" followed by a name: the number ends before the 'e'.
      if (!end_of_number(start, &e, "decimal")) return false;
      emit(TokenKind::Number, start, e);
      p_ = e;
      return true;
    }
    if (!decimal_tail(start, &q)) return false;
  }
  c = s_[q];
  if (c == 'j' || c == 'J') {
  imaginary:
    ++q;
    if (!end_of_number(start, &q, "imaginary")) return false;
  } else if (!end_of_number(start, &q, "decimal")) {
    return false;
  }
  emit(TokenKind::Number, start, q);
  p_ = q;
  return true;
}

Lexer::Scan Lexer::scan_string(uint32_t quote_pos, uint32_t limit, uint32_t* end,
                               bool* backslash) const {
  char quote = s_[quote_pos];
  uint32_t q = quote_pos + 1;
  int quote_size = 1;
  *backslash = false;
  if (q + 1 < limit && s_[q] == quote && s_[q + 1] == quote) {
    quote_size = 3;
    q += 2;
  } else if (q < limit && s_[q] == quote) {
    *end = q + 1;
    return Scan::Closed;
  }
  int end_quote = 0;
  while (end_quote != quote_size) {
    if (q >= limit) {
      *end = q;
      return Scan::Limit;
    }
    char c = s_[q];
    if (quote_size == 1 && (c == '\n' || c == '\r')) {
      *end = q;
      return Scan::LineEnd;
    }
    ++q;
    if (c == quote) {
      ++end_quote;
    } else {
      end_quote = 0;
      if (c == '\\') {
        *backslash = true;
        if (q + 1 < limit && s_[q] == '\r' && s_[q + 1] == '\n') {
          q += 2;
        } else if (q < limit) {
          ++q;
        }
      }
    }
  }
  *end = q;
  return Scan::Closed;
}

// A str/bytes literal: prefix at `start`, opening quote at `quote_pos`.
bool Lexer::string(uint32_t start, uint32_t quote_pos) {
  bool nested_311 = v311_ && !modes_.empty();
  uint32_t limit = nested_311 ? modes_.back().end : n_;
  uint32_t end;
  bool backslash;
  Scan result = scan_string(quote_pos, limit, &end, &backslash);
  if (nested_311) {
    // 3.11 scans the expression text of a replacement field before parsing it.
    if (backslash) return fstring_error("f-string expression part cannot include a backslash");
    if (result != Scan::Closed) return fstring_error("f-string: unterminated string");
  }
  if (result == Scan::Closed) {
    emit(TokenKind::String, start, end);
    p_ = end;
    return true;
  }
  char quote = s_[quote_pos];
  bool triple = quote_pos + 2 < end && s_[quote_pos + 1] == quote && s_[quote_pos + 2] == quote;
  if (inside_fstring() && modes_.back().quote == quote &&
      modes_.back().quote_size == (triple ? 3 : 1)) {
    // 3.12: the f-string's own closing quote where '}' was due.
    return fail(codes::kTokenizeError, "f-string: expecting '}'", start, start, start, end);
  }
  uint32_t detected = result == Scan::LineEnd ? line_of(end) : eof_line();
  std::string message =
      triple ? "unterminated triple-quoted string literal" : "unterminated string literal";
  message += " (detected at line " + std::to_string(detected) + ")";
  return fail(codes::kTokenizeError, std::move(message), start, start, start, end);
}

bool Lexer::fstring_start(uint32_t start, uint32_t quote_pos) {
  char quote = s_[quote_pos];
  uint8_t quote_size = 1;
  if (s_[quote_pos + 1] == quote && s_[quote_pos + 2] == quote) quote_size = 3;
  uint32_t q = quote_pos + quote_size;
  if (modes_.size() + 1 >= kMaxFStrings) {
    return fail_at("too many nested f-strings", q - 1);
  }
  FMode m;
  if (v311_) {
    // 3.11 reads an f-string as a plain string first: it ends at the first matching quote.
    bool nested = !modes_.empty();
    uint32_t limit = nested ? modes_.back().end : n_;
    uint32_t end;
    bool backslash;
    Scan result = scan_string(quote_pos, limit, &end, &backslash);
    if (nested && backslash) {
      return fstring_error("f-string expression part cannot include a backslash");
    }
    if (result != Scan::Closed) {
      if (nested) return fstring_error("f-string: unterminated string");
      return string(start, quote_pos);  // reports the unterminated string
    }
    m.end = end - quote_size;
  }
  m.quote = quote;
  m.quote_size = quote_size;
  m.start = start;
  m.raw = (s_[start] | 0x20) == 'r' || (s_[start + 1] | 0x20) == 'r';
  m.brackets_before = brackets_.size();
  modes_.push_back(m);
  emit(TokenKind::FStringStart, start, q);
  p_ = q;
  return true;
}

uint32_t Lexer::operator_length(uint32_t q) const {
  char c = s_[q], c2 = s_[q + 1], c3 = c2 ? s_[q + 2] : '\0';
  if (c3 == '=' && ((c == '*' && c2 == '*') || (c == '/' && c2 == '/') || (c == '>' && c2 == '>') ||
                    (c == '<' && c2 == '<'))) {
    return 3;
  }
  if (c == '.' && c2 == '.' && c3 == '.') return 3;
  static constexpr const char* kTwo[] = {"!=", "%=", "&=", "**", "*=", "+=", "-=",
                                         "->", "//", "/=", ":=", "<<", "<=", "<>",
                                         "==", ">=", ">>", "@=", "^=", "|="};
  for (const char* two : kTwo) {
    if (two[0] == c && two[1] == c2) return 2;
  }
  return 1;
}

bool Lexer::fstring_error(const std::string& message) {
  std::string full;
  for (size_t i = 1; i < modes_.size(); ++i) full += "f-string: ";
  full += message;
  uint32_t here = p_ < n_ ? p_ : n_;
  if (modes_.empty()) return fail(codes::kTokenizeError, full, here, here, here, here);
  // Find the token that follows the string concatenation holding the outermost f-string.
  const FMode& outer = modes_.front();
  uint32_t q = outer.end + outer.quote_size;
  bool in_brackets = outer.brackets_before > 0;
  for (;;) {
    while (s_[q] == ' ' || s_[q] == '\t' || s_[q] == '\f') ++q;
    char c = s_[q];
    if (c == '\\' && (s_[q + 1] == '\n' || s_[q + 1] == '\r')) {
      q += s_[q + 1] == '\r' && s_[q + 2] == '\n' ? 3 : 2;
      continue;
    }
    uint32_t comment = n_ + 1;
    if (c == '#') {
      comment = q;
      while (q < n_ && s_[q] != '\n' && s_[q] != '\r') ++q;
      c = s_[q];
    }
    if (q >= n_ || c == '\n' || c == '\r') {
      if (in_brackets && q < n_) {
        q += c == '\r' && s_[q + 1] == '\n' ? 2 : 1;
        continue;
      }
      // The NEWLINE token, which CPython starts at a comment before it.
      uint32_t b = comment <= n_ ? comment : q;
      return fail(codes::kTokenizeError, full, b, q, here, here);
    }
    // Another string of the concatenation?
    uint32_t r = q;
    while (r < q + 2 && std::strchr("bBrRuUfF", s_[r]) != nullptr && s_[r] != '\0') ++r;
    if (s_[r] == '\'' || s_[r] == '"') {
      uint32_t end;
      bool backslash;
      if (scan_string(r, n_, &end, &backslash) != Scan::Closed) {
        modes_.clear();
        return string(q, r);  // its own error comes first
      }
      q = end;
      continue;
    }
    uint32_t len;
    if (has(c, kIdStart) || is_digit(c)) {
      len = 0;
      while (has(s_[q + len], kIdChar) || (is_digit(c) && s_[q + len] == '.')) ++len;
    } else {
      len = operator_length(q);
    }
    return fail(codes::kTokenizeError, full, q, q + len, here, here);
  }
}

// Literal text of an f-string (or of a format spec), up to a replacement field or the end.
bool Lexer::fstring_step() {
  FMode& m = modes_.back();
  const int max_nesting = v311_ ? 2 : kMaxExprNesting;
  auto at_end = [&](uint32_t i) {
    if (v311_) return i >= m.end;
    return s_[i] == m.quote &&
           (m.quote_size == 1 || (s_[i + 1] == m.quote && s_[i + 2] == m.quote));
  };
  auto open_field = [&](uint32_t brace) {
    ++m.expr_start_depth;
    if (m.expr_start_depth >= max_nesting) {
      if (v311_) return fstring_error("f-string: expressions nested too deeply");
      return fail_at("f-string: expressions nested too deeply", brace - 1);
    }
    m.literal = false;
    m.in_format_spec = false;
    p_ = brace;
    return true;
  };
  uint32_t start = p_;
  if (s_[p_] == '{' && s_[p_ + 1] != '{' && !at_end(p_)) return open_field(p_);
  if (at_end(p_)) {
    // 3.11 cuts a replacement field off at the closing quote.
    if (v311_ && m.expr_start_depth >= 0) return fstring_error("f-string: expecting '}'");
    emit(TokenKind::FStringEnd, p_, p_ + m.quote_size);
    p_ += m.quote_size;
    modes_.pop_back();
    return true;
  }
  bool in_format_spec = m.in_format_spec && m.expr_start_depth >= 0;
  bool unicode_escape = false;
  uint32_t q = p_;
  for (;;) {
    char c = s_[q];
    if (v311_ && q >= m.end) {
      if (q > start) emit(TokenKind::FStringMiddle, start, q);
      p_ = q;
      return true;
    }
    if (q >= n_ || (m.quote_size == 1 && (c == '\n' || c == '\r'))) {
      if (in_format_spec && q < n_) {
        // A line break ends a format spec of a one-line string: back to the expression.
        m.literal = false;
        m.in_format_spec = false;
        if (q > start) emit(TokenKind::FStringMiddle, start, q);
        p_ = q;
        return true;
      }
      std::string message = m.quote_size == 3 ? "unterminated triple-quoted f-string literal"
                                              : "unterminated f-string literal";
      uint32_t detected = q >= n_ ? eof_line() : line_of(q);
      message += " (detected at line " + std::to_string(detected) + ")";
      return fail(codes::kTokenizeError, std::move(message), m.start, m.start, start, q);
    }
    if (!v311_ && at_end(q)) {
      if (q > start) emit(TokenKind::FStringMiddle, start, q);
      p_ = q;
      return true;
    }
    if (c == '{') {
      if (s_[q + 1] != '{' || in_format_spec) {
        if (q > start) emit(TokenKind::FStringMiddle, start, q);
        return open_field(q);
      }
      // "{{": the text keeps one brace, the other is skipped.
      emit(TokenKind::FStringMiddle, start, q + 1);
      p_ = q + 2;
      return true;
    }
    if (c == '}') {
      if (unicode_escape) {
        emit(TokenKind::FStringMiddle, start, q + 1);
        p_ = q + 1;
        return true;
      }
      if (s_[q + 1] == '}' && !in_format_spec && m.curly_depth == 0 && !(v311_ && q + 1 >= m.end)) {
        emit(TokenKind::FStringMiddle, start, q + 1);
        p_ = q + 2;
        return true;
      }
      if (q > start) emit(TokenKind::FStringMiddle, start, q);
      p_ = q;
      m.literal = false;
      return true;
    }
    ++q;
    if (c == '\\') {
      char peek = s_[q];
      if (peek == '\r' && s_[q + 1] == '\n') peek = s_[++q];
      if (peek == '{' || peek == '}') continue;
      if (!m.raw && peek == 'N') {
        ++q;
        if (s_[q] == '{') unicode_escape = true, ++q;
        continue;
      }
      if (q < n_) ++q;
    }
  }
}

}  // namespace

LexResult lex(const SourceText& source, const LexOptions& options) {
  LexResult result;
  Lexer lexer(source, options, result);
  lexer.run();
  return result;
}

}  // namespace graphmend
