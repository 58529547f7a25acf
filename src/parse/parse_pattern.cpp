// Match-statement patterns (PEP 634), following the `patterns` rules of CPython's
// Grammar/python.gram. A parenthesized single pattern is the pattern itself (its span
// excludes the parentheses); every other pattern spans the tokens its rule consumed.
#include <string>
#include <vector>

#include "parse/parser_impl.h"

namespace graphmend {

namespace {

bool is_complex(const ast::expr* e) {
  auto* c = ast::as<ast::Constant>(e);
  return c != nullptr && c->value.type == ast::ConstantValue::Type::Complex;
}

}  // namespace

// patterns: open_sequence_pattern (a MatchSequence) | pattern
ast::pattern* Parser::parse_patterns() {
  size_t start = mark();
  ast::pattern* first = parse_maybe_star_pattern();
  if (first == nullptr) return nullptr;
  if (!at(TokenKind::Comma)) {
    if (ast::is<ast::MatchStar>(first)) return fail_here("invalid syntax");
    return first;
  }
  std::vector<ast::pattern*> items{first};
  while (accept(TokenKind::Comma)) {
    if (at(TokenKind::Colon) || at(TokenKind::Kw_if)) break;
    ast::pattern* p = parse_maybe_star_pattern();
    if (p == nullptr) return nullptr;
    items.push_back(p);
  }
  auto* node = make<ast::MatchSequence>(span_from(start));
  node->patterns = seq<ast::pattern*>(items);
  return node;
}

// maybe_star_pattern: star_pattern | pattern
ast::pattern* Parser::parse_maybe_star_pattern() {
  if (!at(TokenKind::Star)) return parse_pattern();
  size_t start = mark();
  advance();
  std::string_view name;
  if (at_soft_keyword("_")) {
    advance();
  } else if (at_capture_target()) {
    name = identifier(advance());
  } else {
    return fail_here("invalid syntax");
  }
  auto* node = make<ast::MatchStar>(span_from(start));
  node->name = name;
  return node;
}

// pattern_capture_target: !"_" NAME !('.' | '(' | '=')
bool Parser::at_capture_target() const {
  return at(TokenKind::Name) && !at_soft_keyword("_") && !at(TokenKind::Dot, 1) &&
         !at(TokenKind::LPar, 1) && !at(TokenKind::Equal, 1);
}

// pattern: as_pattern | or_pattern
ast::pattern* Parser::parse_pattern() {
  size_t start = mark();
  ast::pattern* pattern = parse_or_pattern();
  if (pattern == nullptr) return nullptr;
  if (!at(TokenKind::Kw_as)) return pattern;
  advance();
  if (at_soft_keyword("_")) return fail_here("cannot use '_' as a target");
  if (!at(TokenKind::Name)) {
    // invalid_as_pattern: or_pattern 'as' !NAME expression
    Checkpoint cp = checkpoint();
    size_t target = mark();
    ast::expr* e = parse_expression();
    restore(cp);
    if (e != nullptr) return fail(e->span(), "invalid pattern target");
    return fail(token_span(target), "invalid syntax");
  }
  if (!at_capture_target()) {
    advance();
    return fail_here("invalid syntax");
  }
  std::string_view name = identifier(advance());
  auto* node = make<ast::MatchAs>(span_from(start));
  node->pattern = pattern;
  node->name = name;
  return node;
}

// or_pattern: '|'.closed_pattern+
ast::pattern* Parser::parse_or_pattern() {
  size_t start = mark();
  ast::pattern* first = parse_closed_pattern();
  if (first == nullptr || !at(TokenKind::VBar)) return first;
  std::vector<ast::pattern*> alternatives{first};
  while (accept(TokenKind::VBar)) {
    ast::pattern* p = parse_closed_pattern();
    if (p == nullptr) return nullptr;
    alternatives.push_back(p);
  }
  auto* node = make<ast::MatchOr>(span_from(start));
  node->patterns = seq<ast::pattern*>(alternatives);
  return node;
}

// signed_number !('+' | '-') | complex_number: `1`, `-1`, `1j`, `-1.5+2j`.
ast::expr* Parser::parse_number_literal() {
  size_t start = mark();
  bool negative = accept(TokenKind::Minus);
  if (!at(TokenKind::Number)) return fail_here("invalid syntax");
  ast::expr* number = parse_atom();
  if (number == nullptr) return nullptr;
  ast::expr* value = number;
  if (negative) {
    auto* unary = make<ast::UnaryOp>(span_from(start));
    unary->op = ast::UnaryOpKind::USub;
    unary->operand = number;
    value = unary;
  }
  if (!at(TokenKind::Plus) && !at(TokenKind::Minus)) return value;
  if (is_complex(number)) return fail(number->span(), "real number required in complex literal");
  ast::OperatorKind op =
      advance().kind == TokenKind::Plus ? ast::OperatorKind::Add : ast::OperatorKind::Sub;
  if (!at(TokenKind::Number)) return fail_here("invalid syntax");
  ast::expr* imaginary = parse_atom();
  if (imaginary == nullptr) return nullptr;
  if (!is_complex(imaginary)) {
    return fail(imaginary->span(), "imaginary number required in complex literal");
  }
  auto* binop = make<ast::BinOp>(span_from(start));
  binop->left = value;
  binop->op = op;
  binop->right = imaginary;
  return binop;
}

// name_or_attr: NAME ('.' NAME)*, as a Name or an Attribute chain (ctx Load).
ast::expr* Parser::parse_name_or_attr() {
  size_t start = mark();
  if (!at(TokenKind::Name)) return fail_here("invalid syntax");
  auto* name = make<ast::Name>(peek().span());
  name->id = identifier(advance());
  name->ctx = ast::ExprContext::Load;
  ast::expr* value = name;
  while (at(TokenKind::Dot)) {
    advance();
    if (!at(TokenKind::Name)) return fail_here("invalid syntax");
    std::string_view attr = identifier(advance());
    auto* node = make<ast::Attribute>(span_from(start));
    node->value = value;
    node->attr = attr;
    node->ctx = ast::ExprContext::Load;
    value = node;
  }
  return value;
}

ast::Constant* Parser::make_singleton_constant(ast::ConstantValue::Type type) {
  auto* c = make<ast::Constant>(peek().span());
  c->value.type = type;
  advance();
  return c;
}

ast::pattern* Parser::parse_closed_pattern() {
  size_t start = mark();
  switch (peek().kind) {
    case TokenKind::Number:
    case TokenKind::Minus: {
      ast::expr* value = parse_number_literal();
      if (value == nullptr) return nullptr;
      auto* node = make<ast::MatchValue>(span_from(start));
      node->value = value;
      return node;
    }
    case TokenKind::String:
    case TokenKind::FStringStart: {
      ast::expr* value = parse_strings();
      if (value == nullptr) return nullptr;
      auto* node = make<ast::MatchValue>(span_from(start));
      node->value = value;
      return node;
    }
    case TokenKind::Kw_None:
    case TokenKind::Kw_True:
    case TokenKind::Kw_False: {
      TokenKind kind = advance().kind;
      auto* node = make<ast::MatchSingleton>(span_from(start));
      node->value.type = kind == TokenKind::Kw_None   ? ast::ConstantValue::Type::None
                         : kind == TokenKind::Kw_True ? ast::ConstantValue::Type::True
                                                      : ast::ConstantValue::Type::False;
      return node;
    }
    case TokenKind::LPar:
    case TokenKind::LSqb:
      return parse_sequence_or_group_pattern();
    case TokenKind::LBrace:
      return parse_mapping_pattern();
    case TokenKind::Name:
      break;
    default:
      return fail_here("invalid syntax");
  }
  // capture, wildcard, value or class pattern
  if (!at(TokenKind::Dot, 1) && !at(TokenKind::LPar, 1)) {
    if (at_soft_keyword("_")) {
      advance();
      return make<ast::MatchAs>(span_from(start));
    }
    if (at(TokenKind::Equal, 1)) {
      advance();
      return fail_here("invalid syntax");
    }
    auto* node = make<ast::MatchAs>(peek().span());
    node->name = identifier(advance());
    return node;
  }
  ast::expr* cls = parse_name_or_attr();
  if (cls == nullptr) return nullptr;
  if (at(TokenKind::LPar)) return parse_class_pattern(start, cls);
  if (at(TokenKind::Equal)) return fail_here("invalid syntax");
  auto* node = make<ast::MatchValue>(span_from(start));
  node->value = cls;
  return node;
}

// group_pattern '(' pattern ')' | sequence_pattern '[' ... ']' / '(' ... ')'
ast::pattern* Parser::parse_sequence_or_group_pattern() {
  size_t start = mark();
  bool paren = advance().kind == TokenKind::LPar;
  TokenKind closer = paren ? TokenKind::RPar : TokenKind::RSqb;
  std::vector<ast::pattern*> items;
  if (!at(closer)) {
    ast::pattern* first = parse_maybe_star_pattern();
    if (first == nullptr) return nullptr;
    if (paren && at(closer)) {
      if (ast::is<ast::MatchStar>(first)) return fail_here("invalid syntax");
      advance();
      return first;  // a group: the pattern itself
    }
    items.push_back(first);
    while (accept(TokenKind::Comma)) {
      if (at(closer)) break;
      ast::pattern* p = parse_maybe_star_pattern();
      if (p == nullptr) return nullptr;
      items.push_back(p);
    }
  }
  if (!accept(closer)) return fail_here("invalid syntax");
  auto* node = make<ast::MatchSequence>(span_from(start));
  node->patterns = seq<ast::pattern*>(items);
  return node;
}

// mapping_pattern: '{' [items_pattern] [',' '**' capture] [','] '}'
ast::pattern* Parser::parse_mapping_pattern() {
  size_t start = mark();
  advance();
  std::vector<ast::expr*> keys;
  std::vector<ast::pattern*> patterns;
  std::string_view rest;
  while (!at(TokenKind::RBrace)) {
    if (at(TokenKind::DoubleStar)) {
      advance();
      if (!at_capture_target()) return fail_here("invalid syntax");
      rest = identifier(advance());
      accept(TokenKind::Comma);
      break;
    }
    // key: literal_expr | attr
    ast::expr* key = nullptr;
    switch (peek().kind) {
      case TokenKind::Number:
      case TokenKind::Minus:
        key = parse_number_literal();
        break;
      case TokenKind::String:
      case TokenKind::FStringStart:
        key = parse_strings();
        break;
      case TokenKind::Kw_None:
        key = make_singleton_constant(ast::ConstantValue::Type::None);
        break;
      case TokenKind::Kw_True:
        key = make_singleton_constant(ast::ConstantValue::Type::True);
        break;
      case TokenKind::Kw_False:
        key = make_singleton_constant(ast::ConstantValue::Type::False);
        break;
      case TokenKind::Name:
        if (!at(TokenKind::Dot, 1)) {
          advance();
          return fail_here("invalid syntax");
        }
        key = parse_name_or_attr();
        break;
      default:
        return fail_here("invalid syntax");
    }
    if (key == nullptr) return nullptr;
    if (!accept(TokenKind::Colon)) return fail_here("invalid syntax");
    ast::pattern* value = parse_pattern();
    if (value == nullptr) return nullptr;
    keys.push_back(key);
    patterns.push_back(value);
    if (!accept(TokenKind::Comma)) break;
  }
  if (!accept(TokenKind::RBrace)) return fail_here("invalid syntax");
  auto* node = make<ast::MatchMapping>(span_from(start));
  node->keys = seq<ast::expr*>(keys);
  node->patterns = seq<ast::pattern*>(patterns);
  node->rest = rest;
  return node;
}

// class_pattern: name_or_attr '(' [positional, ...] [keyword=pattern, ...] [','] ')'
ast::pattern* Parser::parse_class_pattern(size_t start, ast::expr* cls) {
  advance();  // '('
  std::vector<ast::pattern*> positional;
  std::vector<std::string_view> kwd_attrs;
  std::vector<ast::pattern*> kwd_patterns;
  ast::pattern* misplaced_first = nullptr;  // positional patterns after keyword ones
  ast::pattern* misplaced_last = nullptr;
  while (!at(TokenKind::RPar)) {
    if (at(TokenKind::Name) && at(TokenKind::Equal, 1)) {
      if (misplaced_first != nullptr) break;
      kwd_attrs.push_back(identifier(advance()));
      advance();
      ast::pattern* p = parse_pattern();
      if (p == nullptr) return nullptr;
      kwd_patterns.push_back(p);
    } else {
      ast::pattern* p = parse_pattern();
      if (p == nullptr) return nullptr;
      if (!kwd_attrs.empty()) {
        if (misplaced_first == nullptr) misplaced_first = p;
        misplaced_last = p;
      } else {
        positional.push_back(p);
      }
    }
    if (!accept(TokenKind::Comma)) break;
  }
  if (misplaced_first != nullptr) {
    return fail({misplaced_first->begin, misplaced_last->end},
                "positional patterns follow keyword patterns");
  }
  if (!accept(TokenKind::RPar)) return fail_here("invalid syntax");
  auto* node = make<ast::MatchClass>(span_from(start));
  node->cls = cls;
  node->patterns = seq<ast::pattern*>(positional);
  node->kwd_attrs = seq<std::string_view>(kwd_attrs);
  node->kwd_patterns = seq<ast::pattern*>(kwd_patterns);
  return node;
}

}  // namespace graphmend
