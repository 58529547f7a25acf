// Adjacent string literals and f-strings: CPython's `strings` rule.
//
// The lexer splits f-strings PEP 701 style (FStringStart, FStringMiddle, '{' expression
// ... '}', FStringEnd) for every target version. The AST differs by version:
//  * 3.12 (Parser/action_helpers.c): each literal part and replacement field keeps its
//    own position; adjacent literal parts of the whole concatenation are merged.
//  * 3.11 (Parser/string_parser.c): every literal part and FormattedValue spans the whole
//    concatenation, a format spec's JoinedStr spans the f-string token holding it, and a
//    field's expression was parsed as "(expr)", so a bare tuple or generator expression
//    spans from '{' to the character after it.
#include <initializer_list>
#include <string>

#include "parse/literals.h"
#include "parse/parser_impl.h"

namespace graphmend {

namespace {

struct QuotedParts {
  std::string_view prefix;
  std::string_view body;
  uint32_t body_offset;
};

// Splits a String token's text into prefix, body and the body's source offset.
QuotedParts split_string_token(std::string_view text, uint32_t begin) {
  size_t p = 0;
  while (p < text.size() && text[p] != '\'' && text[p] != '"') ++p;
  QuotedParts parts{text.substr(0, p), {}, begin};
  if (p >= text.size()) return parts;
  char quote = text[p];
  size_t rest = text.size() - p;
  size_t quote_len = rest >= 6 && text[p + 1] == quote && text[p + 2] == quote ? 3 : 1;
  if (rest < 2 * quote_len) return parts;
  parts.body = text.substr(p + quote_len, rest - 2 * quote_len);
  parts.body_offset = begin + static_cast<uint32_t>(p + quote_len);
  return parts;
}

std::string_view fstring_prefix(std::string_view start_text) {
  size_t p = 0;
  while (p < start_text.size() && start_text[p] != '\'' && start_text[p] != '"') ++p;
  return start_text.substr(0, p);
}

}  // namespace

// One element of a concatenation, before folding: a literal (decoded text) or a node.
struct Parser::StringPart {
  ast::expr* node = nullptr;  // FormattedValue (or a 3.12 debug JoinedStr); null: literal
  std::string text;           // the decoded literal
  Span span;
  bool kind_u = false;  // from a plain string token spelled u'...'
};

// Decodes `body` into `out`; records the error and returns false when it is invalid.
bool Parser::decode_literal(std::string_view body, uint32_t body_offset, bool raw, bool bytes,
                            std::string& out) {
  StringPrefix prefix;
  prefix.raw = raw;
  prefix.bytes = bytes;
  if (std::optional<LiteralError> error = decode_string_body(body, body_offset, prefix, out)) {
    uint32_t end = error->offset < source_.size() ? error->offset + 1 : error->offset;
    fail({error->offset, end}, std::move(error->message));
    return false;
  }
  return true;
}

ast::expr* Parser::parse_strings() {
  size_t start = mark();
  bool had_error = failed();
  ast::expr* result = parse_string_tokens();
  if (result == nullptr && !had_error && failed() && !options_.version.at_least(3, 12)) {
    relocate_string_error_311(start);
  }
  return result;
}

// CPython 3.11 decodes literals and parses f-strings in the action of its `strings` rule,
// after the whole concatenation was consumed: its errors point at the token after it, except
// the non-ASCII bytes error, which points at the start of the offending token.
void Parser::relocate_string_error_311(size_t first_token) {
  Diagnostic& error = *error_;
  size_t i = first_token;
  int depth = 0;
  for (; i + 1 < tokens_.size(); ++i) {
    TokenKind kind = tokens_[i].kind;
    if (kind == TokenKind::FStringStart)
      ++depth;
    else if (kind == TokenKind::FStringEnd)
      --depth;
    else if (depth == 0 && kind != TokenKind::String)
      break;
    if (depth == 0 && kind == TokenKind::String &&
        error.message.rfind("bytes can only contain ASCII", 0) == 0 &&
        tokens_[i].begin <= error.span.begin && error.span.begin < tokens_[i].end) {
      error.span = {tokens_[i].begin, tokens_[i].begin};
      return;
    }
  }
  uint32_t next = tokens_[i].begin;
  error.span = {next, next};
}

ast::expr* Parser::parse_string_tokens() {
  size_t start = mark();
  // Fast path: one plain string token.
  if (at(TokenKind::String) && !at(TokenKind::String, 1) && !at(TokenKind::FStringStart, 1)) {
    const Token& token = advance();
    std::string_view text = this->text(token);
    QuotedParts parts = split_string_token(text, token.begin);
    StringPrefix prefix = parse_string_prefix(parts.prefix);
    if (!decode_literal(parts.body, parts.body_offset, prefix.raw, prefix.bytes, string_buf_))
      return nullptr;
    auto* node = make<ast::Constant>(token.span());
    node->value.type =
        prefix.bytes ? ast::ConstantValue::Type::Bytes : ast::ConstantValue::Type::Str;
    node->value.text = arena_.copy(string_buf_);
    if (!text.empty() && text[0] == 'u') node->kind = "u";
    return node;
  }

  // 3.11 format specs of this concatenation (nested ones were handled by nested calls).
  struct SpecScope {
    std::vector<ast::JoinedStr*>& specs;
    size_t base;
    ~SpecScope() { specs.resize(base); }
  } spec_scope{pending_specs_, pending_specs_.size()};
  std::vector<StringPart> parts;
  bool any_fstring = false;
  bool any_bytes = false;
  bool any_str = false;
  bool first_u = text(peek())[0] == 'u';
  while (at(TokenKind::String) || at(TokenKind::FStringStart)) {
    if (at(TokenKind::String)) {
      const Token& token = advance();
      std::string_view text = this->text(token);
      QuotedParts quoted = split_string_token(text, token.begin);
      StringPrefix prefix = parse_string_prefix(quoted.prefix);
      (prefix.bytes ? any_bytes : any_str) = true;
      StringPart part;
      if (!decode_literal(quoted.body, quoted.body_offset, prefix.raw, prefix.bytes, part.text))
        return nullptr;
      part.span = token.span();
      part.kind_u = !text.empty() && text[0] == 'u';
      parts.push_back(std::move(part));
    } else {
      any_fstring = true;
      if (!parse_fstring(parts)) return nullptr;
    }
  }
  Span whole = span_from(start);
  if (any_bytes && (any_str || any_fstring)) {
    return fail(peek().span(), "cannot mix bytes and nonbytes literals");
  }
  bool v312 = options_.version.at_least(3, 12);

  if (!any_fstring) {
    std::string value;
    for (const StringPart& part : parts) value += part.text;
    auto* node = make<ast::Constant>(whole);
    node->value.type = any_bytes ? ast::ConstantValue::Type::Bytes : ast::ConstantValue::Type::Str;
    node->value.text = arena_.copy(value);
    if (first_u) node->kind = "u";
    return node;
  }

  std::vector<ast::expr*> values;
  if (v312) {
    // _PyPegen_concatenate_strings: fold runs of literals; a run of one keeps its own span
    // and kind; empty results are dropped.
    for (size_t i = 0; i < parts.size();) {
      if (parts[i].node != nullptr) {
        values.push_back(parts[i].node);
        ++i;
        continue;
      }
      size_t j = i;
      std::string value;
      while (j < parts.size() && parts[j].node == nullptr) value += parts[j++].text;
      if (!value.empty()) {
        auto* node = make<ast::Constant>({parts[i].span.begin, parts[j - 1].span.end});
        node->value.type = ast::ConstantValue::Type::Str;
        node->value.text = arena_.copy(value);
        if (parts[i].kind_u) node->kind = "u";
        values.push_back(node);
      }
      i = j;
    }
  } else {
    // FstringParser: literal text accumulates until a field; everything spans the whole.
    std::string pending;
    auto flush = [&] {
      if (pending.empty()) return;
      auto* node = make<ast::Constant>(whole);
      node->value.type = ast::ConstantValue::Type::Str;
      node->value.text = arena_.copy(pending);
      if (first_u) node->kind = "u";
      values.push_back(node);
      pending.clear();
    };
    for (StringPart& part : parts) {
      if (part.node == nullptr) {
        pending += part.text;
        continue;
      }
      flush();
      part.node->begin = whole.begin;
      part.node->end = whole.end;
      values.push_back(part.node);
    }
    flush();
  }
  auto* node = make<ast::JoinedStr>(whole);
  node->values = seq<ast::expr*>(values);
  if (!v312) {
    // In a format spec, a trailing literal spans the f-string token holding the spec (it
    // is flushed with that token as both ends); every other part spans the whole
    // concatenation.
    for (size_t i = spec_scope.base; i < pending_specs_.size(); ++i) {
      ast::JoinedStr* spec = pending_specs_[i];
      for (uint32_t k = 0; k < spec->values.size; ++k) {
        ast::expr* value = spec->values[k];
        bool trailing_literal = k + 1 == spec->values.size && value->kind == ast::Kind::Constant;
        value->begin = trailing_literal ? spec->begin : whole.begin;
        value->end = trailing_literal ? spec->end : whole.end;
      }
    }
  }
  return node;
}

// One f-string, FStringStart to FStringEnd, appending its parts to `parts`.
bool Parser::parse_fstring(std::vector<StringPart>& parts) {
  bool v312 = options_.version.at_least(3, 12);
  size_t start = mark();
  const Token& start_token = advance();
  bool raw = parse_string_prefix(fstring_prefix(text(start_token))).raw;
  size_t specs_base = pending_specs_.size();
  while (!at(TokenKind::FStringEnd)) {
    if (at(TokenKind::FStringMiddle)) {
      const Token& token = advance();
      StringPart part;
      if (!decode_literal(text(token), token.begin, raw, false, part.text)) return false;
      part.span = token.span();
      // CPython 3.12's token for "{{"/"}}" ends after the brace it skipped.
      char last = token.end > token.begin ? source_.text()[token.end - 1] : '\0';
      if ((last == '{' || last == '}') && token.end < source_.size() &&
          source_.text()[token.end] == last && peek().begin > token.end) {
        part.span.end += 1;
      }
      // _PyPegen_joined_str drops parts that decode to nothing (a line continuation).
      if (v312 && part.text.empty()) continue;
      parts.push_back(std::move(part));
    } else if (at(TokenKind::LBrace)) {
      ast::FormattedValue* field = nullptr;
      StringPart debug;
      bool has_debug = false;
      if (!parse_replacement_field(raw, &field, &debug, &has_debug)) return false;
      if (has_debug) parts.push_back(std::move(debug));
      StringPart part;
      part.node = field;
      part.span = field->span();
      parts.push_back(std::move(part));
    } else {
      fail_here("f-string: expecting '}'");
      return false;
    }
  }
  advance();  // FStringEnd
  if (!v312) {
    // A format spec's JoinedStr spans the f-string token it is written in.
    Span token_span = span_from(start);
    for (size_t i = specs_base; i < pending_specs_.size(); ++i) {
      pending_specs_[i]->begin = token_span.begin;
      pending_specs_[i]->end = token_span.end;
    }
  }
  return true;
}

// The source of `range` as the text of a self-documenting `{expr=}`. CPython 3.12 allows
// comments in a multi-line replacement field and cuts every '#' to the end of its line out of
// that text (a '#' inside a nested string included), so this does the same.
std::string Parser::debug_text_without_comments(Span range) const {
  std::string_view text = source_.text().substr(range.begin, range.end - range.begin);
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '#') {
      while (i < text.size() && text[i] != '\n' && text[i] != '\r') ++i;
      if (i == text.size()) break;
    }
    out.push_back(text[i]);
  }
  return out;
}

// '{' expression ['='] ['!' NAME] [':' format_spec] '}' into *field; with '=', *has_debug
// is set and *debug holds the expression's text.
bool Parser::parse_replacement_field(bool raw, ast::FormattedValue** field_out,
                                     StringPart* debug_out, bool* has_debug_out) {
  bool v312 = options_.version.at_least(3, 12);
  size_t lbrace_index = mark();
  const Token& lbrace = advance();
  if (at(TokenKind::RBrace)) {
    fail_here(v312 ? "f-string: valid expression required before '}'"
                   : "f-string: empty expression not allowed");
    return false;
  }
  // The expression: yield_expr | star_expressions (3.11 also takes a bare generator).
  size_t expr_start = mark();
  ast::expr* value;
  bool bare_tuple_or_genexp = false;
  if (at(TokenKind::Kw_yield)) {
    value = parse_yield_expr();
  } else {
    value = parse_star_expression();
    if (value != nullptr && at(TokenKind::Comma)) {
      std::vector<ast::expr*> elts{value};
      while (accept(TokenKind::Comma)) {
        if (!starts_expression(peek().kind) && !at(TokenKind::Star)) break;
        ast::expr* next = parse_star_expression();
        if (next == nullptr) return false;
        elts.push_back(next);
      }
      auto* tuple = make<ast::Tuple>(span_from(expr_start));
      tuple->elts = seq<ast::expr*>(elts);
      value = tuple;
      bare_tuple_or_genexp = true;
    } else if (value != nullptr && !v312 && value->kind != ast::Kind::Starred &&
               (at(TokenKind::Kw_for) || at(TokenKind::Kw_async))) {
      ast::Seq<ast::comprehension*> generators;
      if (!parse_for_if_clauses(generators)) return false;
      auto* genexp = make<ast::GeneratorExp>(span_from(expr_start));
      genexp->elt = value;
      genexp->generators = generators;
      value = genexp;
      bare_tuple_or_genexp = true;
    } else if (value != nullptr && !v312 && value->kind == ast::Kind::Starred) {
      fail(value->span(), "f-string: cannot use starred expression here");
      return false;
    }
  }
  if (value == nullptr) {
    // 3.11 parsed the expression with a parser of its own that prefixes its errors.
    if (!v312 && error_ && error_->message.rfind("f-string", 0) != 0) {
      error_->message.insert(0, "f-string: ");
    }
    return false;
  }
  if (!v312 && bare_tuple_or_genexp) {
    // 3.11 parsed "(expr)" with the parentheses standing where '{' and the terminator are.
    value->begin = lbrace.begin;
    value->end = peek().begin + 1;
  }

  // '=': the expression's text, up to the conversion/spec/closing brace.
  StringPart& debug = *debug_out;
  bool& has_debug = *has_debug_out;
  if (at(TokenKind::Equal)) {
    advance();
    has_debug = true;
    uint32_t text_end = peek().begin;
    debug.text = debug_text_without_comments({lbrace.end, text_end});
    debug.span = {lbrace.end, text_end};
  }

  int conversion = -1;
  if (at(TokenKind::Exclamation)) {
    const Token& bang = advance();
    if (!at(TokenKind::Name)) {
      fail(v312 ? bang.span() : peek().span(),
           v312 ? "f-string: missing conversion character"
                : "f-string: invalid conversion character: expected 's', 'r', or 'a'");
      return false;
    }
    const Token& name = peek();
    std::string_view conv = text(name);
    if (v312 && name.begin != bang.end) {
      fail(name.span(), "f-string: conversion type must come right after the exclamanation mark");
      return false;
    }
    if (conv != "s" && conv != "r" && conv != "a") {
      fail(name.span(),
           v312 ? "f-string: invalid conversion character '" + std::string(conv) +
                      "': expected 's', 'r', or 'a'"
                : std::string("f-string: invalid conversion character: expected 's', 'r', or 'a'"));
      return false;
    }
    advance();
    conversion = conv[0];
    if (!v312 && (peek().begin != name.end || (!at(TokenKind::RBrace) && !at(TokenKind::Colon)))) {
      fail_here("f-string: expecting '}'");
      return false;
    }
  }

  ast::JoinedStr* format_spec = nullptr;
  if (at(TokenKind::Colon)) {
    size_t colon_index = mark();
    advance();
    std::vector<ast::expr*> spec;
    std::string pending;  // 3.11 merges adjacent literal text
    Span pending_span{};
    bool last_was_field = false;
    auto flush = [&] {
      if (pending.empty()) return;
      auto* constant = make<ast::Constant>(pending_span);
      constant->value.type = ast::ConstantValue::Type::Str;
      constant->value.text = arena_.copy(pending);
      spec.push_back(constant);
      pending.clear();
    };
    while (!at(TokenKind::RBrace)) {
      if (at(TokenKind::FStringMiddle)) {
        const Token& token = advance();
        std::string decoded;
        if (!decode_literal(text(token), token.begin, raw, false, decoded)) return false;
        last_was_field = false;
        if (v312) {
          auto* constant = make<ast::Constant>(token.span());
          constant->value.type = ast::ConstantValue::Type::Str;
          constant->value.text = arena_.copy(decoded);
          spec.push_back(constant);
        } else {
          if (pending.empty()) pending_span = token.span();
          pending += decoded;
        }
      } else if (at(TokenKind::LBrace)) {
        ast::FormattedValue* inner = nullptr;
        StringPart inner_debug;
        bool inner_has_debug = false;
        if (!parse_replacement_field(raw, &inner, &inner_debug, &inner_has_debug)) return false;
        last_was_field = true;
        if (v312) {
          if (inner_has_debug) {
            // 3.12 keeps the debug text and the field as a JoinedStr inside the spec.
            auto* debug_text = make<ast::Constant>(inner_debug.span);
            debug_text->value.type = ast::ConstantValue::Type::Str;
            debug_text->value.text = arena_.copy(inner_debug.text);
            auto* pair = make<ast::JoinedStr>({inner->begin, inner_debug.span.end + 1});
            pair->values = seq<ast::expr*>(std::initializer_list<ast::expr*>{debug_text, inner});
            spec.push_back(pair);
          } else {
            spec.push_back(inner);
          }
        } else {
          pending += inner_debug.text;
          flush();
          spec.push_back(inner);
        }
      } else {
        fail_here("f-string: expecting '}'");
        return false;
      }
    }
    if (!v312) flush();
    Span spec_span = span_from(colon_index);
    if (v312 && last_was_field) {
      // CPython 3.12.1's tokenizer yields an empty literal before the closing brace.
      auto* empty = make<ast::Constant>({spec_span.end, spec_span.end});
      empty->value.type = ast::ConstantValue::Type::Str;
      spec.push_back(empty);
    }
    format_spec = make<ast::JoinedStr>(spec_span);
    format_spec->values = seq<ast::expr*>(spec);
    if (!v312) pending_specs_.push_back(format_spec);
  }

  if (!at(TokenKind::RBrace)) {
    fail_here("f-string: expecting '}'");
    return false;
  }
  advance();
  if (has_debug && conversion == -1 && format_spec == nullptr) conversion = 'r';

  auto* field = make<ast::FormattedValue>(span_from(lbrace_index));
  field->value = value;
  field->conversion = conversion;
  field->format_spec = format_spec;
  *field_out = field;
  return true;
}

}  // namespace graphmend
