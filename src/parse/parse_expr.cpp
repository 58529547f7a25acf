// Expressions, assignment/deletion targets and call arguments, following the
// `expressions` ... `del_t_atom` rules of CPython's Grammar/python.gram.
//
// Left-recursive rules (bitwise_or, sum, primary, ...) are loops here. Lists being built
// live on the Parser's scratch stacks (expr_scratch_, ...) so that nested displays do not
// allocate a vector each; ScratchGuard truncates a stack on every exit path.
#include <algorithm>
#include <initializer_list>
#include <string>

#include "parse/literals.h"
#include "parse/parser_impl.h"

namespace graphmend {

namespace {

using ast::CmpOpKind;
using ast::ExprContext;
using ast::OperatorKind;

template <class T>
struct ScratchGuard {
  std::vector<T>& items;
  size_t base;
  explicit ScratchGuard(std::vector<T>& v) : items(v), base(v.size()) {}
  ~ScratchGuard() {
    if (items.size() > base) items.resize(base);
  }
  ScratchGuard(const ScratchGuard&) = delete;
  ScratchGuard& operator=(const ScratchGuard&) = delete;
};

// Deep enough for any real program, shallow enough to stay far from the stack's end.
constexpr int kMaxNesting = 3000;

struct NestingScope {
  int& depth;
  explicit NestingScope(int& d) : depth(d) {}
  ~NestingScope() { --depth; }
};

bool gets_assign_here_message(const ast::expr* e);

ast::ConstantValue simple_constant(ast::ConstantValue::Type type) {
  ast::ConstantValue value;
  value.type = type;
  return value;
}

}  // namespace

// ---------------------------------------------------------------------------- helpers

bool Parser::starts_expression(TokenKind kind) const {
  switch (kind) {
    case TokenKind::Name:
    case TokenKind::Number:
    case TokenKind::String:
    case TokenKind::FStringStart:
    case TokenKind::LPar:
    case TokenKind::LSqb:
    case TokenKind::LBrace:
    case TokenKind::Minus:
    case TokenKind::Plus:
    case TokenKind::Tilde:
    case TokenKind::Ellipsis:
    case TokenKind::Kw_not:
    case TokenKind::Kw_lambda:
    case TokenKind::Kw_await:
    case TokenKind::Kw_True:
    case TokenKind::Kw_False:
    case TokenKind::Kw_None:
      return true;
    default:
      return false;
  }
}

bool Parser::enter_nesting() {
  if (++nesting_ <= kMaxNesting) {
    peak_nesting_ = std::max(peak_nesting_, nesting_);
    return true;
  }
  --nesting_;
  ++nesting_limit_hits_;
  fail_here("too many nested expressions");
  return false;
}

ast::expr* Parser::parse_bracket_atom() {
  size_t start = mark();
  auto known = failed_atoms_.find(start);
  if (known != failed_atoms_.end() && known->second.in_comma_probe == in_comma_probe_ &&
      nesting_ + known->second.depth_used <= kMaxNesting) {
    reset(known->second.end);
    if (!failed()) error_ = known->second.error;
    return nullptr;
  }
  bool had_error = failed();
  int outer_peak = peak_nesting_;
  int limit_hits = nesting_limit_hits_;
  peak_nesting_ = nesting_;
  TokenKind kind = peek().kind;
  ast::expr* e = kind == TokenKind::LPar   ? parse_paren_atom()
                 : kind == TokenKind::LSqb ? parse_list_atom()
                                           : parse_brace_atom();
  int depth_used = peak_nesting_ - nesting_;
  peak_nesting_ = std::max(outer_peak, peak_nesting_);
  // Only a failure of its own (no earlier error hid it, no nesting limit shaped it)
  // replays exactly.
  if (e == nullptr && !had_error && failed() && limit_hits == nesting_limit_hits_) {
    failed_atoms_.emplace(start, FailedAtom{mark(), *error_, depth_used, in_comma_probe_});
  }
  return e;
}

bool Parser::bracket_has_trailer(size_t open) const {
  if (open >= closer_of_.size() || closer_of_[open] == kNoCloser) return false;
  TokenKind next = peek(closer_of_[open] + 1 - pos_).kind;
  return next == TokenKind::Dot || next == TokenKind::LSqb || next == TokenKind::LPar;
}

const char* Parser::expr_name(const ast::expr* e) {
  switch (e->kind) {
    case ast::Kind::Attribute:
      return "attribute";
    case ast::Kind::Subscript:
      return "subscript";
    case ast::Kind::Starred:
      return "starred";
    case ast::Kind::Name:
      return "name";
    case ast::Kind::List:
      return "list";
    case ast::Kind::Tuple:
      return "tuple";
    case ast::Kind::Lambda:
      return "lambda";
    case ast::Kind::Call:
      return "function call";
    case ast::Kind::BoolOp:
    case ast::Kind::BinOp:
    case ast::Kind::UnaryOp:
      return "expression";
    case ast::Kind::GeneratorExp:
      return "generator expression";
    case ast::Kind::Yield:
    case ast::Kind::YieldFrom:
      return "yield expression";
    case ast::Kind::Await:
      return "await expression";
    case ast::Kind::ListComp:
      return "list comprehension";
    case ast::Kind::SetComp:
      return "set comprehension";
    case ast::Kind::DictComp:
      return "dict comprehension";
    case ast::Kind::Dict:
      return "dict literal";
    case ast::Kind::Set:
      return "set display";
    case ast::Kind::JoinedStr:
    case ast::Kind::FormattedValue:
      return "f-string expression";
    case ast::Kind::Constant: {
      switch (static_cast<const ast::Constant*>(e)->value.type) {
        case ast::ConstantValue::Type::None:
          return "None";
        case ast::ConstantValue::Type::True:
          return "True";
        case ast::ConstantValue::Type::False:
          return "False";
        case ast::ConstantValue::Type::Ellipsis:
          return "ellipsis";
        default:
          return "literal";
      }
    }
    case ast::Kind::Compare:
      return "comparison";
    case ast::Kind::IfExp:
      return "conditional expression";
    case ast::Kind::NamedExpr:
      return "named expression";
    default:
      return "expression";
  }
}

ast::expr* Parser::find_invalid_target(ast::expr* e, bool for_targets) {
  while (e != nullptr) {
    switch (e->kind) {
      case ast::Kind::List:
      case ast::Kind::Tuple: {
        ast::Seq<ast::expr*> elts = e->kind == ast::Kind::List ? static_cast<ast::List*>(e)->elts
                                                               : static_cast<ast::Tuple*>(e)->elts;
        for (ast::expr* elt : elts) {
          if (ast::expr* bad = find_invalid_target(elt, for_targets)) return bad;
        }
        return nullptr;
      }
      case ast::Kind::Starred:
        e = static_cast<ast::Starred*>(e)->value;
        continue;
      case ast::Kind::Compare:
        // `for x in y in z`: the target is what precedes the first `in`.
        if (for_targets) {
          auto* compare = static_cast<ast::Compare*>(e);
          if (compare->ops.size > 0 && compare->ops[0] == CmpOpKind::In) {
            e = compare->left;
            continue;
          }
        }
        return e;
      case ast::Kind::Name:
      case ast::Kind::Subscript:
      case ast::Kind::Attribute:
        return nullptr;
      default:
        return e;
    }
  }
  return nullptr;
}

bool Parser::set_context(ast::expr* e, ExprContext ctx) {
  if (ast::expr* bad = find_invalid_target(e, false)) {
    if (bad == e && ctx == ExprContext::Store && at(TokenKind::Equal) &&
        gets_assign_here_message(e)) {
      // `f() = 1` (but not `f() = 1 = 2`): invalid_named_expression's friendlier message.
      Checkpoint cp = checkpoint();
      advance();
      bool single =
          parse_bitwise_or() != nullptr && !at(TokenKind::Equal) && !at(TokenKind::ColonEqual);
      restore(cp);
      if (single) {
        fail_assign_in_expression(e);
        return false;
      }
    }
    std::string message = ctx == ExprContext::Del ? "cannot delete " : "cannot assign to ";
    message += expr_name(bad);
    fail(bad->span(), std::move(message));
    return false;
  }
  // Now every leaf is a Name/Attribute/Subscript: set ctx throughout.
  switch (e->kind) {
    case ast::Kind::Name:
      static_cast<ast::Name*>(e)->ctx = ctx;
      break;
    case ast::Kind::Attribute:
      static_cast<ast::Attribute*>(e)->ctx = ctx;
      break;
    case ast::Kind::Subscript:
      static_cast<ast::Subscript*>(e)->ctx = ctx;
      break;
    case ast::Kind::Starred:
      static_cast<ast::Starred*>(e)->ctx = ctx;
      set_context(static_cast<ast::Starred*>(e)->value, ctx);
      break;
    case ast::Kind::List:
      static_cast<ast::List*>(e)->ctx = ctx;
      for (ast::expr* elt : static_cast<ast::List*>(e)->elts) set_context(elt, ctx);
      break;
    case ast::Kind::Tuple:
      static_cast<ast::Tuple*>(e)->ctx = ctx;
      for (ast::expr* elt : static_cast<ast::Tuple*>(e)->elts) set_context(elt, ctx);
      break;
    default:
      break;
  }
  return true;
}

namespace {

// Whether invalid_named_expression's "cannot assign to X here" applies to `e`: a
// bitwise_or-level expression other than a list, tuple, generator or True/False/None.
bool gets_assign_here_message(const ast::expr* e) {
  switch (e->kind) {
    case ast::Kind::List:
    case ast::Kind::Tuple:
    case ast::Kind::GeneratorExp:
    case ast::Kind::BoolOp:
    case ast::Kind::Compare:
    case ast::Kind::IfExp:
    case ast::Kind::Lambda:
    case ast::Kind::NamedExpr:
    case ast::Kind::Yield:
    case ast::Kind::YieldFrom:
    case ast::Kind::Starred:
      return false;
    case ast::Kind::UnaryOp:
      return static_cast<const ast::UnaryOp*>(e)->op != ast::UnaryOpKind::Not;
    case ast::Kind::Constant: {
      auto type = static_cast<const ast::Constant*>(e)->value.type;
      return type != ast::ConstantValue::Type::True && type != ast::ConstantValue::Type::False &&
             type != ast::ConstantValue::Type::None;
    }
    default:
      return true;
  }
}

}  // namespace

std::nullptr_t Parser::fail_assign_in_expression(ast::expr* e) {
  // invalid_named_expression: `NAME = value` and `<bitwise_or> = value`.
  if (e->kind == ast::Kind::Name) {
    return fail(e->span(), "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  }
  if (!gets_assign_here_message(e)) return fail_here("invalid syntax");
  return fail(e->span(), std::string("cannot assign to ") + expr_name(e) +
                             " here. Maybe you meant '==' instead of '='?");
}

bool Parser::inside_brackets() const {
  int depth = 0;
  for (size_t i = pos_; i-- > 0;) {
    switch (tokens_[i].kind) {
      case TokenKind::RPar:
      case TokenKind::RSqb:
      case TokenKind::RBrace:
        ++depth;
        break;
      case TokenKind::LPar:
      case TokenKind::LSqb:
      case TokenKind::LBrace:
        if (depth-- == 0) return true;
        break;
      case TokenKind::Newline:
      case TokenKind::Indent:
      case TokenKind::Dedent:
        return false;  // a statement boundary is never inside brackets
      default:
        break;
    }
  }
  return false;
}

ast::expr* Parser::check_forgot_comma(ast::expr* body, size_t start) {
  // !(NAME STRING | SOFT_KEYWORD) a=disjunction b=expression_without_invalid, inside
  // brackets, and not a legacy `print x` / `exec x`.
  const Token& first = tokens_[start];
  if (first.kind == TokenKind::Name) {
    TokenKind next = tokens_[start + 1].kind;
    if (next == TokenKind::String || next == TokenKind::FStringStart) return body;
    std::string_view word = text(first);
    if (word == "match" || word == "case" || word == "type" || word == "_") return body;
    if (body->kind == ast::Kind::Name && (word == "print" || word == "exec")) return body;
  }
  if (in_comma_probe_ || !inside_brackets()) return body;
  Checkpoint cp = checkpoint();
  in_comma_probe_ = true;
  ast::expr* next = parse_expression();
  in_comma_probe_ = false;
  restore(cp);
  if (next == nullptr) return body;
  return fail({body->begin, next->end}, "invalid syntax. Perhaps you forgot a comma?");
}

// ---------------------------------------------------------------------------- expressions

ast::expr* Parser::parse_expression() {
  if (!enter_nesting()) return nullptr;
  NestingScope scope(nesting_);
  if (at(TokenKind::Kw_lambda)) return parse_lambda();
  size_t start = mark();
  ast::expr* body = parse_disjunction();
  if (body == nullptr) return nullptr;
  if (!at(TokenKind::Kw_if)) {
    // Valid code never has an expression start right after a disjunction.
    return starts_expression(peek().kind) ? check_forgot_comma(body, start) : body;
  }
  size_t if_pos = mark();
  advance();
  ast::expr* test = parse_disjunction();
  if (test == nullptr) return nullptr;
  if (!accept(TokenKind::Kw_else)) {
    if (at(TokenKind::Colon)) {
      reset(if_pos);
      return body;
    }
    return fail({body->begin, test->end}, "expected 'else' after 'if' expression");
  }
  ast::expr* orelse = parse_expression();
  if (orelse == nullptr) return nullptr;
  auto* node = make<ast::IfExp>(span_from(start));
  node->test = test;
  node->body = body;
  node->orelse = orelse;
  return node;
}

ast::expr* Parser::parse_lambda() {
  size_t start = mark();
  advance();  // 'lambda'
  ast::arguments* args;
  if (at(TokenKind::Colon)) {
    args = make<ast::arguments>(peek().span());
  } else {
    args = parse_parameters(true, TokenKind::Colon);
    if (failed()) return nullptr;
  }
  if (!expect(TokenKind::Colon, "':'")) return nullptr;
  ast::expr* body = parse_expression();
  if (body == nullptr) return nullptr;
  auto* node = make<ast::Lambda>(span_from(start));
  node->args = args;
  node->body = body;
  return node;
}

ast::expr* Parser::parse_named_expression() {
  if (at(TokenKind::Name) && at(TokenKind::ColonEqual, 1)) {
    size_t start = mark();
    const Token& name_token = advance();
    auto* target = make<ast::Name>(name_token.span());
    target->id = identifier(name_token);
    target->ctx = ExprContext::Store;
    advance();  // ':='
    ast::expr* value = parse_expression();
    if (value == nullptr) return nullptr;
    auto* node = make<ast::NamedExpr>(span_from(start));
    node->target = target;
    node->value = value;
    return node;
  }
  ast::expr* e = parse_expression();
  if (e == nullptr) return nullptr;
  if (at(TokenKind::ColonEqual)) {
    return fail(e->span(), std::string("cannot use assignment expressions with ") + expr_name(e));
  }
  if (at(TokenKind::Equal) && !at(TokenKind::Equal, 1)) return fail_assign_in_expression(e);
  return e;
}

ast::expr* Parser::parse_star_expression() {
  if (!at(TokenKind::Star)) return parse_expression();
  size_t start = mark();
  advance();
  ast::expr* value = parse_bitwise_or();
  if (value == nullptr) return nullptr;
  auto* node = make<ast::Starred>(span_from(start));
  node->value = value;
  return node;
}

ast::expr* Parser::parse_star_named_expression() {
  if (!at(TokenKind::Star)) return parse_named_expression();
  size_t start = mark();
  advance();
  ast::expr* value = parse_bitwise_or();
  if (value == nullptr) return nullptr;
  auto* node = make<ast::Starred>(span_from(start));
  node->value = value;
  return node;
}

ast::expr* Parser::parse_star_expressions() {
  size_t start = mark();
  ast::expr* first = parse_star_expression();
  if (first == nullptr || !at(TokenKind::Comma)) return first;
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  expr_scratch_.push_back(first);
  while (accept(TokenKind::Comma)) {
    if (!starts_expression(peek().kind) && !at(TokenKind::Star)) break;
    ast::expr* next = parse_star_expression();
    if (next == nullptr) return nullptr;
    expr_scratch_.push_back(next);
  }
  auto* node = make<ast::Tuple>(span_from(start));
  node->elts = seq_from(expr_scratch_, guard.base);
  return node;
}

ast::expr* Parser::parse_star_named_expressions_in_brackets() {
  // A display's contents up to the closer: `star_named_expressions` as a Tuple-less list is
  // handled by the display parsers themselves; this entry parses one element.
  return parse_star_named_expression();
}

ast::expr* Parser::parse_yield_expr() {
  size_t start = mark();
  advance();  // 'yield'
  if (accept(TokenKind::Kw_from)) {
    ast::expr* value = parse_expression();
    if (value == nullptr) return nullptr;
    auto* node = make<ast::YieldFrom>(span_from(start));
    node->value = value;
    return node;
  }
  ast::expr* value = nullptr;
  if (starts_expression(peek().kind) || at(TokenKind::Star)) {
    value = parse_star_expressions();
    if (value == nullptr) return nullptr;
  }
  auto* node = make<ast::Yield>(span_from(start));
  node->value = value;
  return node;
}

ast::expr* Parser::parse_disjunction() {
  size_t start = mark();
  ast::expr* first = parse_conjunction();
  if (first == nullptr || !at(TokenKind::Kw_or)) return first;
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  expr_scratch_.push_back(first);
  while (accept(TokenKind::Kw_or)) {
    ast::expr* next = parse_conjunction();
    if (next == nullptr) return nullptr;
    expr_scratch_.push_back(next);
  }
  auto* node = make<ast::BoolOp>(span_from(start));
  node->op = ast::BoolOpKind::Or;
  node->values = seq_from(expr_scratch_, guard.base);
  return node;
}

ast::expr* Parser::parse_conjunction() {
  size_t start = mark();
  ast::expr* first = parse_inversion();
  if (first == nullptr || !at(TokenKind::Kw_and)) return first;
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  expr_scratch_.push_back(first);
  while (accept(TokenKind::Kw_and)) {
    ast::expr* next = parse_inversion();
    if (next == nullptr) return nullptr;
    expr_scratch_.push_back(next);
  }
  auto* node = make<ast::BoolOp>(span_from(start));
  node->op = ast::BoolOpKind::And;
  node->values = seq_from(expr_scratch_, guard.base);
  return node;
}

ast::expr* Parser::parse_inversion() {
  if (!at(TokenKind::Kw_not)) return parse_comparison();
  if (!enter_nesting()) return nullptr;
  NestingScope scope(nesting_);
  size_t start = mark();
  advance();
  ast::expr* operand = parse_inversion();
  if (operand == nullptr) return nullptr;
  auto* node = make<ast::UnaryOp>(span_from(start));
  node->op = ast::UnaryOpKind::Not;
  node->operand = operand;
  return node;
}

ast::expr* Parser::parse_comparison() {
  size_t start = mark();
  ast::expr* left = parse_bitwise_or();
  if (left == nullptr) return nullptr;
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  ScratchGuard<CmpOpKind> op_guard(cmpop_scratch_);
  for (;;) {
    CmpOpKind op;
    switch (peek().kind) {
      case TokenKind::EqEqual:
        op = CmpOpKind::Eq;
        break;
      case TokenKind::NotEqual:
        op = CmpOpKind::NotEq;
        break;
      case TokenKind::Less:
        op = CmpOpKind::Lt;
        break;
      case TokenKind::LessEqual:
        op = CmpOpKind::LtE;
        break;
      case TokenKind::Greater:
        op = CmpOpKind::Gt;
        break;
      case TokenKind::GreaterEqual:
        op = CmpOpKind::GtE;
        break;
      case TokenKind::Kw_in:
        op = CmpOpKind::In;
        break;
      case TokenKind::Kw_not:
        if (!at(TokenKind::Kw_in, 1)) goto done;
        advance();
        op = CmpOpKind::NotIn;
        break;
      case TokenKind::Kw_is:
        if (at(TokenKind::Kw_not, 1)) {
          advance();
          op = CmpOpKind::IsNot;
        } else {
          op = CmpOpKind::Is;
        }
        break;
      default:
        goto done;
    }
    advance();
    {
      ast::expr* right = parse_bitwise_or();
      if (right == nullptr) return nullptr;
      cmpop_scratch_.push_back(op);
      expr_scratch_.push_back(right);
    }
  }
done:
  if (expr_scratch_.size() == guard.base) return left;
  auto* node = make<ast::Compare>(span_from(start));
  node->left = left;
  node->ops = seq_from(cmpop_scratch_, op_guard.base);
  node->comparators = seq_from(expr_scratch_, guard.base);
  return node;
}

namespace {

ast::expr* make_binop(Parser& p, size_t start, ast::expr* left, OperatorKind op, ast::expr* right) {
  auto* node = p.make<ast::BinOp>(p.span_from(start));
  node->left = left;
  node->op = op;
  node->right = right;
  return node;
}

}  // namespace

ast::expr* Parser::parse_bitwise_or() {
  size_t start = mark();
  ast::expr* left = parse_bitwise_xor();
  while (left != nullptr && accept(TokenKind::VBar)) {
    ast::expr* right = parse_bitwise_xor();
    if (right == nullptr) return nullptr;
    left = make_binop(*this, start, left, OperatorKind::BitOr, right);
  }
  return left;
}

ast::expr* Parser::parse_bitwise_xor() {
  size_t start = mark();
  ast::expr* left = parse_bitwise_and();
  while (left != nullptr && accept(TokenKind::Circumflex)) {
    ast::expr* right = parse_bitwise_and();
    if (right == nullptr) return nullptr;
    left = make_binop(*this, start, left, OperatorKind::BitXor, right);
  }
  return left;
}

ast::expr* Parser::parse_bitwise_and() {
  size_t start = mark();
  ast::expr* left = parse_shift_expr();
  while (left != nullptr && accept(TokenKind::Amper)) {
    ast::expr* right = parse_shift_expr();
    if (right == nullptr) return nullptr;
    left = make_binop(*this, start, left, OperatorKind::BitAnd, right);
  }
  return left;
}

ast::expr* Parser::parse_shift_expr() {
  size_t start = mark();
  ast::expr* left = parse_sum();
  while (left != nullptr) {
    OperatorKind op;
    if (at(TokenKind::LeftShift)) {
      op = OperatorKind::LShift;
    } else if (at(TokenKind::RightShift)) {
      op = OperatorKind::RShift;
    } else {
      break;
    }
    advance();
    ast::expr* right = parse_sum();
    if (right == nullptr) return nullptr;
    left = make_binop(*this, start, left, op, right);
  }
  return left;
}

ast::expr* Parser::parse_sum() {
  size_t start = mark();
  ast::expr* left = parse_term();
  while (left != nullptr) {
    OperatorKind op;
    if (at(TokenKind::Plus)) {
      op = OperatorKind::Add;
    } else if (at(TokenKind::Minus)) {
      op = OperatorKind::Sub;
    } else {
      break;
    }
    advance();
    ast::expr* right = parse_term();
    if (right == nullptr) return nullptr;
    left = make_binop(*this, start, left, op, right);
  }
  return left;
}

ast::expr* Parser::parse_term() {
  size_t start = mark();
  ast::expr* left = parse_factor();
  while (left != nullptr) {
    OperatorKind op;
    switch (peek().kind) {
      case TokenKind::Star:
        op = OperatorKind::Mult;
        break;
      case TokenKind::Slash:
        op = OperatorKind::Div;
        break;
      case TokenKind::DoubleSlash:
        op = OperatorKind::FloorDiv;
        break;
      case TokenKind::Percent:
        op = OperatorKind::Mod;
        break;
      case TokenKind::At:
        op = OperatorKind::MatMult;
        break;
      default:
        return left;
    }
    advance();
    ast::expr* right = parse_factor();
    if (right == nullptr) return nullptr;
    left = make_binop(*this, start, left, op, right);
  }
  return left;
}

ast::expr* Parser::parse_factor() {
  ast::UnaryOpKind op;
  switch (peek().kind) {
    case TokenKind::Plus:
      op = ast::UnaryOpKind::UAdd;
      break;
    case TokenKind::Minus:
      op = ast::UnaryOpKind::USub;
      break;
    case TokenKind::Tilde:
      op = ast::UnaryOpKind::Invert;
      break;
    default:
      return parse_power();
  }
  if (!enter_nesting()) return nullptr;
  NestingScope scope(nesting_);
  size_t start = mark();
  advance();
  ast::expr* operand = parse_factor();
  if (operand == nullptr) return nullptr;
  auto* node = make<ast::UnaryOp>(span_from(start));
  node->op = op;
  node->operand = operand;
  return node;
}

ast::expr* Parser::parse_power() {
  size_t start = mark();
  ast::expr* base;
  if (at(TokenKind::Kw_await)) {
    advance();
    ast::expr* value = parse_primary();
    if (value == nullptr) return nullptr;
    auto* node = make<ast::Await>(span_from(start));
    node->value = value;
    base = node;
  } else {
    base = parse_primary();
    if (base == nullptr) return nullptr;
  }
  if (!accept(TokenKind::DoubleStar)) return base;
  if (!enter_nesting()) return nullptr;
  NestingScope scope(nesting_);
  ast::expr* exponent = parse_factor();
  if (exponent == nullptr) return nullptr;
  return make_binop(*this, start, base, OperatorKind::Pow, exponent);
}

// ---------------------------------------------------------------------------- primaries

ast::expr* Parser::parse_primary() {
  size_t start = mark();
  ast::expr* atom = parse_atom();
  if (atom == nullptr) return nullptr;
  return parse_trailers(atom, start);
}

ast::expr* Parser::parse_trailers(ast::expr* e, size_t start) {
  for (;;) {
    switch (peek().kind) {
      case TokenKind::Dot: {
        advance();
        if (!at(TokenKind::Name)) return fail_here("invalid syntax");
        const Token& name = advance();
        auto* node = make<ast::Attribute>(span_from(start));
        node->value = e;
        node->attr = identifier(name);
        e = node;
        break;
      }
      case TokenKind::LPar:
        e = parse_call(e, start);
        if (e == nullptr) return nullptr;
        break;
      case TokenKind::LSqb: {
        advance();
        ast::expr* slice = parse_slices();
        if (slice == nullptr) return nullptr;
        if (!expect(TokenKind::RSqb, "']'")) return nullptr;
        auto* node = make<ast::Subscript>(span_from(start));
        node->value = e;
        node->slice = slice;
        e = node;
        break;
      }
      default:
        return e;
    }
  }
}

ast::expr* Parser::parse_call(ast::expr* func, size_t start) {
  size_t open = mark();
  advance();  // '('
  ScratchGuard<ast::expr*> args_guard(expr_scratch_);
  ScratchGuard<ast::keyword*> keywords_guard(keyword_scratch_);
  ast::expr* genexp = nullptr;
  if (!parse_call_arguments_into(open, args_guard.base, keywords_guard.base, &genexp)) {
    return nullptr;
  }
  if (!expect(TokenKind::RPar, "')'")) return nullptr;
  auto* node = make<ast::Call>(span_from(start));
  node->func = func;
  if (genexp != nullptr) {
    genexp->end = node->end;
    node->args = seq<ast::expr*>(std::initializer_list<ast::expr*>{genexp});
    return node;
  }
  node->args = seq_from(expr_scratch_, args_guard.base);
  node->keywords = seq_from(keyword_scratch_, keywords_guard.base);
  return node;
}

bool Parser::parse_call_arguments(std::vector<ast::expr*>& args,
                                  std::vector<ast::keyword*>& keywords) {
  ScratchGuard<ast::expr*> args_guard(expr_scratch_);
  ScratchGuard<ast::keyword*> keywords_guard(keyword_scratch_);
  size_t open = mark() > 0 ? mark() - 1 : 0;
  ast::expr* genexp = nullptr;
  if (!parse_call_arguments_into(open, args_guard.base, keywords_guard.base, &genexp)) {
    return false;
  }
  if (genexp != nullptr) {
    if (at(TokenKind::RPar)) genexp->end = peek().end;
    args.push_back(genexp);
    return true;
  }
  args.assign(expr_scratch_.begin() + args_guard.base, expr_scratch_.end());
  keywords.assign(keyword_scratch_.begin() + keywords_guard.base, keyword_scratch_.end());
  return true;
}

// Parses `arguments` after '(' (at token `open`) onto the scratch stacks, stopping before
// ')'. A sole generator argument `f(x for x in y)` comes back in *genexp instead, its span
// starting at the '(' (the caller extends it to the ')').
bool Parser::parse_call_arguments_into(size_t open, size_t expr_base, size_t keyword_base,
                                       ast::expr** genexp) {
  bool seen_keyword = false;
  bool seen_double_star = false;
  while (!at(TokenKind::RPar)) {
    size_t start = mark();
    if (at(TokenKind::Star)) {
      advance();
      ast::expr* value = parse_expression();
      if (value == nullptr) return false;
      if (seen_double_star) {
        fail(span_from(start), "iterable argument unpacking follows keyword argument unpacking");
        return false;
      }
      auto* node = make<ast::Starred>(span_from(start));
      node->value = value;
      expr_scratch_.push_back(node);
    } else if (at(TokenKind::DoubleStar)) {
      advance();
      ast::expr* value = parse_expression();
      if (value == nullptr) return false;
      auto* node = make<ast::keyword>(span_from(start));
      node->value = value;
      keyword_scratch_.push_back(node);
      seen_double_star = true;
    } else if (at(TokenKind::Name) && at(TokenKind::Equal, 1)) {
      const Token& name = advance();
      advance();  // '='
      ast::expr* value = parse_expression();
      if (value == nullptr) return false;
      if (at(TokenKind::Kw_for) || at(TokenKind::Kw_async)) {
        fail({name.begin, tokens_[start + 1].end},
             "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
        return false;
      }
      auto* node = make<ast::keyword>(span_from(start));
      node->arg = identifier(name);
      node->value = value;
      keyword_scratch_.push_back(node);
      seen_keyword = true;
    } else if ((at(TokenKind::Kw_True) || at(TokenKind::Kw_False) || at(TokenKind::Kw_None)) &&
               at(TokenKind::Equal, 1)) {
      fail({peek().begin, peek(1).end},
           std::string("cannot assign to ") + std::string(text(peek())));
      return false;
    } else {
      // (assignment_expression | expression !':=') !'='
      ast::expr* value = at(TokenKind::Name) && at(TokenKind::ColonEqual, 1)
                             ? parse_named_expression()
                             : parse_expression();
      if (value == nullptr) return false;
      if (at(TokenKind::ColonEqual)) {
        fail(value->span(),
             std::string("cannot use assignment expressions with ") + expr_name(value));
        return false;
      }
      if (at(TokenKind::Kw_for) || at(TokenKind::Kw_async)) {
        bool sole = expr_scratch_.size() == expr_base && keyword_scratch_.size() == keyword_base;
        ast::Seq<ast::comprehension*> generators;
        if (!parse_for_if_clauses(generators)) return false;
        if (!sole || !at(TokenKind::RPar)) {
          fail({value->begin, tokens_[mark() - 1].end},
               "Generator expression must be parenthesized");
          return false;
        }
        auto* node = make<ast::GeneratorExp>(span_from(open));
        node->elt = value;
        node->generators = generators;
        *genexp = node;
        return true;
      }
      if (at(TokenKind::Equal)) {
        fail({value->begin, peek().end},
             "expression cannot contain assignment, perhaps you meant \"==\"?");
        return false;
      }
      if (seen_keyword || seen_double_star) {
        fail_here(seen_double_star ? "positional argument follows keyword argument unpacking"
                                   : "positional argument follows keyword argument");
        return false;
      }
      expr_scratch_.push_back(value);
    }
    if (!accept(TokenKind::Comma)) break;
  }
  if (!at(TokenKind::RPar)) {
    fail_here("invalid syntax");
    return false;
  }
  return true;
}

ast::expr* Parser::parse_slices() {
  size_t start = mark();
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  bool first = true;
  do {
    if (!first && at(TokenKind::RSqb)) break;
    ast::expr* next;
    if (at(TokenKind::Star)) {
      size_t star = mark();
      advance();
      ast::expr* value = parse_expression();
      if (value == nullptr) return nullptr;
      auto* node = make<ast::Starred>(span_from(star));
      node->value = value;
      next = node;
    } else {
      next = parse_slice();
      if (next == nullptr) return nullptr;
      // `slice !','`: a lone slice is the subscript itself.
      if (first && !at(TokenKind::Comma)) return next;
    }
    expr_scratch_.push_back(next);
    first = false;
  } while (accept(TokenKind::Comma));
  auto* node = make<ast::Tuple>(span_from(start));
  node->elts = seq_from(expr_scratch_, guard.base);
  return node;
}

ast::expr* Parser::parse_slice() {
  size_t start = mark();
  ast::expr* lower = nullptr;
  if (!at(TokenKind::Colon)) {
    if (at(TokenKind::Name) && at(TokenKind::ColonEqual, 1)) return parse_named_expression();
    lower = parse_expression();
    if (lower == nullptr) return nullptr;
    if (!at(TokenKind::Colon)) {
      if (at(TokenKind::ColonEqual)) {
        return fail(lower->span(),
                    std::string("cannot use assignment expressions with ") + expr_name(lower));
      }
      if (at(TokenKind::Equal)) return fail_assign_in_expression(lower);
      return lower;
    }
  }
  advance();  // ':'
  ast::expr* upper = nullptr;
  if (starts_expression(peek().kind)) {
    upper = parse_expression();
    if (upper == nullptr) return nullptr;
  }
  ast::expr* step = nullptr;
  if (accept(TokenKind::Colon) && starts_expression(peek().kind)) {
    step = parse_expression();
    if (step == nullptr) return nullptr;
  }
  auto* node = make<ast::Slice>(span_from(start));
  node->lower = lower;
  node->upper = upper;
  node->step = step;
  return node;
}

// ---------------------------------------------------------------------------- atoms

ast::expr* Parser::parse_name_atom() {
  const Token& token = advance();
  auto* node = make<ast::Name>(token.span());
  node->id = identifier(token);
  return node;
}

ast::expr* Parser::parse_number_atom() {
  const Token& token = advance();
  auto* node = make<ast::Constant>(token.span());
  if (std::optional<LiteralError> error =
          parse_number(text(token), token.begin, arena_, node->value)) {
    return fail({error->offset, token.end}, std::move(error->message));
  }
  return node;
}

ast::expr* Parser::parse_atom() {
  switch (peek().kind) {
    case TokenKind::Name:
      return parse_name_atom();
    case TokenKind::Number:
      return parse_number_atom();
    case TokenKind::String:
    case TokenKind::FStringStart:
      return parse_strings();
    case TokenKind::LPar:
    case TokenKind::LSqb:
    case TokenKind::LBrace:
      return parse_bracket_atom();
    case TokenKind::Kw_True:
    case TokenKind::Kw_False:
    case TokenKind::Kw_None:
    case TokenKind::Ellipsis: {
      TokenKind kind = peek().kind;
      auto* node = make<ast::Constant>(advance().span());
      node->value =
          simple_constant(kind == TokenKind::Kw_True    ? ast::ConstantValue::Type::True
                          : kind == TokenKind::Kw_False ? ast::ConstantValue::Type::False
                          : kind == TokenKind::Kw_None  ? ast::ConstantValue::Type::None
                                                        : ast::ConstantValue::Type::Ellipsis);
      return node;
    }
    default:
      return fail_here("invalid syntax");
  }
}

ast::expr* Parser::parse_paren_atom() {
  if (!enter_nesting()) return nullptr;
  NestingScope scope(nesting_);
  size_t start = mark();
  advance();  // '('
  if (accept(TokenKind::RPar)) {
    return make<ast::Tuple>(span_from(start));
  }
  if (at(TokenKind::Kw_yield)) {
    ast::expr* value = parse_yield_expr();
    if (value == nullptr) return nullptr;
    if (!expect(TokenKind::RPar, "')'")) return nullptr;
    return value;
  }
  if (at(TokenKind::DoubleStar)) {
    return fail_here("cannot use double starred expression here");
  }
  ast::expr* first = parse_star_named_expression();
  if (first == nullptr) return nullptr;
  if (at(TokenKind::Kw_for) || at(TokenKind::Kw_async)) {
    if (first->kind == ast::Kind::Starred) {
      return fail(first->span(), "iterable unpacking cannot be used in comprehension");
    }
    ast::Seq<ast::comprehension*> generators;
    if (!parse_for_if_clauses(generators)) return nullptr;
    if (!expect(TokenKind::RPar, "')'")) return nullptr;
    auto* node = make<ast::GeneratorExp>(span_from(start));
    node->elt = first;
    node->generators = generators;
    return node;
  }
  if (accept(TokenKind::RPar)) {
    if (first->kind == ast::Kind::Starred) {
      return fail(first->span(), "cannot use starred expression here");
    }
    return first;  // a group: the parentheses are not part of the expression
  }
  if (!at(TokenKind::Comma)) return fail_here("invalid syntax");
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  expr_scratch_.push_back(first);
  while (accept(TokenKind::Comma)) {
    if (at(TokenKind::RPar)) break;
    ast::expr* next = parse_star_named_expression();
    if (next == nullptr) return nullptr;
    expr_scratch_.push_back(next);
  }
  if (!expect(TokenKind::RPar, "')'")) return nullptr;
  auto* node = make<ast::Tuple>(span_from(start));
  node->elts = seq_from(expr_scratch_, guard.base);
  return node;
}

template <class Comp, class Display>
ast::expr* Parser::parse_display_tail(size_t start, ast::expr* first, TokenKind closer,
                                      const char* closer_text) {
  if (at(TokenKind::Kw_for) || at(TokenKind::Kw_async)) {
    if (first->kind == ast::Kind::Starred) {
      return fail(first->span(), "iterable unpacking cannot be used in comprehension");
    }
    ast::Seq<ast::comprehension*> generators;
    if (!parse_for_if_clauses(generators)) return nullptr;
    if (!expect(closer, closer_text)) return nullptr;
    auto* node = make<Comp>(span_from(start));
    node->elt = first;
    node->generators = generators;
    return node;
  }
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  expr_scratch_.push_back(first);
  while (accept(TokenKind::Comma)) {
    if (at(closer)) break;
    ast::expr* next = parse_star_named_expression();
    if (next == nullptr) return nullptr;
    expr_scratch_.push_back(next);
  }
  if (at(TokenKind::Kw_for) || at(TokenKind::Kw_async)) {
    return fail({first->begin, expr_scratch_.back()->end},
                "did you forget parentheses around the comprehension target?");
  }
  if (!expect(closer, closer_text)) return nullptr;
  auto* node = make<Display>(span_from(start));
  node->elts = seq_from(expr_scratch_, guard.base);
  return node;
}

ast::expr* Parser::parse_list_atom() {
  if (!enter_nesting()) return nullptr;
  NestingScope scope(nesting_);
  size_t start = mark();
  advance();  // '['
  if (accept(TokenKind::RSqb)) return make<ast::List>(span_from(start));
  ast::expr* first = parse_star_named_expression();
  if (first == nullptr) return nullptr;
  return parse_display_tail<ast::ListComp, ast::List>(start, first, TokenKind::RSqb, "']'");
}

ast::expr* Parser::parse_brace_atom() {
  if (!enter_nesting()) return nullptr;
  NestingScope scope(nesting_);
  size_t start = mark();
  advance();  // '{'
  if (accept(TokenKind::RBrace)) return make<ast::Dict>(span_from(start));
  if (at(TokenKind::DoubleStar)) return parse_dict_rest(start, nullptr, mark());
  size_t first_start = mark();
  ast::expr* first;
  if (at(TokenKind::Star) || (at(TokenKind::Name) && at(TokenKind::ColonEqual, 1))) {
    first = parse_star_named_expression();
  } else {
    first = parse_expression();
    if (first != nullptr && at(TokenKind::Colon)) return parse_dict_rest(start, first, first_start);
    if (first != nullptr && at(TokenKind::ColonEqual)) {
      return fail(first->span(),
                  std::string("cannot use assignment expressions with ") + expr_name(first));
    }
  }
  if (first == nullptr) return nullptr;
  return parse_display_tail<ast::SetComp, ast::Set>(start, first, TokenKind::RBrace, "'}'");
}

// The rest of a dict display or comprehension after '{', where `first_key` (null when
// the display starts with '**') was parsed and ':' is next.
ast::expr* Parser::parse_dict_rest(size_t start, ast::expr* first_key, size_t first_start) {
  (void)first_start;
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  bool first = true;
  for (;;) {
    ast::expr* key = nullptr;
    ast::expr* value = nullptr;
    if (first && first_key != nullptr) {
      key = first_key;
    } else if (at(TokenKind::DoubleStar)) {
      size_t star = mark();
      advance();
      value = parse_bitwise_or();
      if (value == nullptr) return nullptr;
      if (first && (at(TokenKind::Kw_for) || at(TokenKind::Kw_async))) {
        return fail(token_span(star), "dict unpacking cannot be used in dict comprehension");
      }
    } else {
      key = parse_expression();
      if (key == nullptr) return nullptr;
    }
    if (key != nullptr) {
      if (!at(TokenKind::Colon)) {
        return fail({key->end > key->begin ? key->end - 1 : key->end, key->end},
                    "':' expected after dictionary key");
      }
      const Token& colon = advance();
      if (at(TokenKind::RBrace) || at(TokenKind::Comma)) {
        return fail(colon.span(), "expression expected after dictionary key and ':'");
      }
      if (at(TokenKind::Star)) {
        return fail(peek().span(), "cannot use a starred expression in a dictionary value");
      }
      value = parse_expression();
      if (value == nullptr) return nullptr;
      if (first && (at(TokenKind::Kw_for) || at(TokenKind::Kw_async))) {
        ast::Seq<ast::comprehension*> generators;
        if (!parse_for_if_clauses(generators)) return nullptr;
        if (!expect(TokenKind::RBrace, "'}'")) return nullptr;
        auto* node = make<ast::DictComp>(span_from(start));
        node->key = key;
        node->value = value;
        node->generators = generators;
        return node;
      }
    }
    expr_scratch_.push_back(key);
    expr_scratch_.push_back(value);
    first = false;
    if (!accept(TokenKind::Comma) || at(TokenKind::RBrace)) break;
  }
  if (!expect(TokenKind::RBrace, "'}'")) return nullptr;
  auto* node = make<ast::Dict>(span_from(start));
  size_t count = (expr_scratch_.size() - guard.base) / 2;
  node->keys.size = node->values.size = static_cast<uint32_t>(count);
  node->keys.data = arena_.make_array<ast::expr*>(count);
  node->values.data = arena_.make_array<ast::expr*>(count);
  for (size_t i = 0; i < count; ++i) {
    node->keys.data[i] = expr_scratch_[guard.base + 2 * i];
    node->values.data[i] = expr_scratch_[guard.base + 2 * i + 1];
  }
  return node;
}

bool Parser::parse_for_if_clauses(ast::Seq<ast::comprehension*>& out) {
  ScratchGuard<ast::comprehension*> guard(comp_scratch_);
  while (at(TokenKind::Kw_for) || (at(TokenKind::Kw_async) && at(TokenKind::Kw_for, 1))) {
    size_t start = mark();
    int is_async = accept(TokenKind::Kw_async) ? 1 : 0;
    advance();  // 'for'
    Checkpoint cp = checkpoint();
    ast::expr* target = parse_star_targets();
    if (target == nullptr || !at(TokenKind::Kw_in)) {
      // invalid_for_target: report what cannot be assigned to.
      restore(cp);
      ast::expr* e = parse_star_expressions();
      if (e == nullptr) return false;
      if (ast::expr* bad = find_invalid_target(e, true)) {
        fail(bad->span(), std::string("cannot assign to ") + expr_name(bad));
        return false;
      }
      fail_here("invalid syntax");
      return false;
    }
    advance();  // 'in'
    ast::expr* iter = parse_disjunction();
    if (iter == nullptr) return false;
    ScratchGuard<ast::expr*> ifs_guard(expr_scratch_);
    while (accept(TokenKind::Kw_if)) {
      ast::expr* cond = parse_disjunction();
      if (cond == nullptr) return false;
      expr_scratch_.push_back(cond);
    }
    auto* node = make<ast::comprehension>(span_from(start));
    node->target = target;
    node->iter = iter;
    node->ifs = seq_from(expr_scratch_, ifs_guard.base);
    node->is_async = is_async;
    comp_scratch_.push_back(node);
  }
  if (comp_scratch_.size() == guard.base) {
    fail_here("invalid syntax");
    return false;
  }
  out = seq_from(comp_scratch_, guard.base);
  return true;
}

// ---------------------------------------------------------------------------- targets

ast::expr* Parser::parse_star_targets() {
  size_t start = mark();
  ast::expr* first = parse_star_target();
  if (first == nullptr) return nullptr;
  if (!at(TokenKind::Comma)) return first;
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  expr_scratch_.push_back(first);
  while (accept(TokenKind::Comma)) {
    if (!at(TokenKind::Star) && !starts_expression(peek().kind)) break;
    Checkpoint cp = checkpoint();
    ast::expr* next = parse_star_target();
    if (next == nullptr) {
      restore(cp);
      break;
    }
    expr_scratch_.push_back(next);
  }
  auto* node = make<ast::Tuple>(span_from(start));
  node->elts = seq_from(expr_scratch_, guard.base);
  node->ctx = ExprContext::Store;
  return node;
}

ast::expr* Parser::parse_star_target() {
  if (!at(TokenKind::Star)) return parse_target_with_star_atom();
  size_t start = mark();
  advance();
  if (at(TokenKind::Star)) return fail_here("invalid syntax");
  if (!enter_nesting()) return nullptr;
  NestingScope scope(nesting_);
  ast::expr* value = parse_star_target();
  if (value == nullptr) return nullptr;
  auto* node = make<ast::Starred>(span_from(start));
  node->value = value;
  node->ctx = ExprContext::Store;
  return node;
}

ast::expr* Parser::parse_simple_target(ExprContext ctx) {
  size_t start = mark();
  ast::expr* atom = parse_atom();
  if (atom == nullptr) return nullptr;
  ast::expr* e = parse_trailers(atom, start);
  if (e == nullptr) return nullptr;
  if (e == atom) {
    if (e->kind == ast::Kind::Name && tokens_[start].kind == TokenKind::Name) {
      static_cast<ast::Name*>(e)->ctx = ctx;
      return e;
    }
    return fail(e->span(), "invalid syntax");
  }
  if (e->kind == ast::Kind::Attribute) {
    static_cast<ast::Attribute*>(e)->ctx = ctx;
    return e;
  }
  if (e->kind == ast::Kind::Subscript) {
    static_cast<ast::Subscript*>(e)->ctx = ctx;
    return e;
  }
  return fail(e->span(), "invalid syntax");
}

ast::expr* Parser::parse_target_with_star_atom() {
  if (!at(TokenKind::LPar) && !at(TokenKind::LSqb)) return parse_simple_target(ExprContext::Store);
  // A parenthesized/bracketed start is either the atom of a t_primary (`(a).b`) or a
  // star_atom (`(a, b)`).
  if (bracket_has_trailer(mark())) {
    Checkpoint cp = checkpoint();
    if (ast::expr* e = parse_simple_target(ExprContext::Store)) return e;
    restore(cp);
  }
  return parse_star_atom();
}

ast::expr* Parser::parse_star_atom() {
  if (!enter_nesting()) return nullptr;
  NestingScope scope(nesting_);
  size_t start = mark();
  bool list = at(TokenKind::LSqb);
  TokenKind closer = list ? TokenKind::RSqb : TokenKind::RPar;
  advance();
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  bool comma = false;
  while (!at(closer)) {
    ast::expr* item = parse_star_target();
    if (item == nullptr) return nullptr;
    expr_scratch_.push_back(item);
    if (!accept(TokenKind::Comma)) break;
    comma = true;
  }
  if (!at(closer)) return fail_here("invalid syntax");
  advance();
  size_t count = expr_scratch_.size() - guard.base;
  if (!list && count == 1 && !comma) {
    ast::expr* only = expr_scratch_.back();
    if (only->kind == ast::Kind::Starred) return fail(only->span(), "invalid syntax");
    return only;  // '(' target_with_star_atom ')'
  }
  if (list) {
    auto* node = make<ast::List>(span_from(start));
    node->elts = seq_from(expr_scratch_, guard.base);
    node->ctx = ExprContext::Store;
    return node;
  }
  auto* node = make<ast::Tuple>(span_from(start));
  node->elts = seq_from(expr_scratch_, guard.base);
  node->ctx = ExprContext::Store;
  return node;
}

ast::expr* Parser::parse_single_target() {
  if (at(TokenKind::LPar)) {
    if (bracket_has_trailer(mark())) {
      Checkpoint cp = checkpoint();
      ast::expr* e = parse_simple_target(ExprContext::Store);
      if (e != nullptr && e->kind != ast::Kind::Name) return e;
      restore(cp);
    }
    advance();  // '('
    ast::expr* inner = parse_single_target();
    if (inner == nullptr) return nullptr;
    if (!expect(TokenKind::RPar, "')'")) return nullptr;
    return inner;
  }
  return parse_simple_target(ExprContext::Store);
}

ast::expr* Parser::parse_del_target() {
  if (!at(TokenKind::LPar) && !at(TokenKind::LSqb)) return parse_simple_target(ExprContext::Del);
  if (bracket_has_trailer(mark())) {
    Checkpoint cp = checkpoint();
    ast::expr* e = parse_simple_target(ExprContext::Del);
    if (e != nullptr && e->kind != ast::Kind::Name) return e;
    restore(cp);
  }
  if (!enter_nesting()) return nullptr;
  NestingScope scope(nesting_);
  size_t start = mark();
  bool list = at(TokenKind::LSqb);
  TokenKind closer = list ? TokenKind::RSqb : TokenKind::RPar;
  advance();
  ScratchGuard<ast::expr*> guard(expr_scratch_);
  bool comma = false;
  while (!at(closer)) {
    ast::expr* item = parse_del_target();
    if (item == nullptr) return nullptr;
    expr_scratch_.push_back(item);
    if (!accept(TokenKind::Comma)) break;
    comma = true;
  }
  if (!at(closer)) return fail_here("invalid syntax");
  advance();
  size_t count = expr_scratch_.size() - guard.base;
  if (!list && count == 1 && !comma) return expr_scratch_.back();  // '(' del_target ')'
  if (list) {
    auto* node = make<ast::List>(span_from(start));
    node->elts = seq_from(expr_scratch_, guard.base);
    node->ctx = ExprContext::Del;
    return node;
  }
  auto* node = make<ast::Tuple>(span_from(start));
  node->elts = seq_from(expr_scratch_, guard.base);
  node->ctx = ExprContext::Del;
  return node;
}

bool Parser::parse_del_target_list(std::vector<ast::expr*>& out) {
  Checkpoint entry = checkpoint();
  size_t out_base = out.size();
  for (;;) {
    ast::expr* target = parse_del_target();
    if (target == nullptr) {
      // invalid_del_stmt: name what cannot be deleted.
      restore(entry);
      out.resize(out_base);
      ast::expr* e = parse_star_expressions();
      if (e == nullptr) return false;
      if (ast::expr* bad = find_invalid_target(e, false)) {
        fail(bad->span(), std::string("cannot delete ") + expr_name(bad));
      } else {
        fail_here("invalid syntax");
      }
      return false;
    }
    out.push_back(target);
    if (!accept(TokenKind::Comma)) break;
    if (!starts_expression(peek().kind)) break;
  }
  return true;
}

ast::expr* Parser::parse_del_targets() {
  size_t start = mark();
  std::vector<ast::expr*> targets;
  if (!parse_del_target_list(targets)) return nullptr;
  if (targets.size() == 1 && tokens_[mark() - 1].kind != TokenKind::Comma) return targets[0];
  auto* node = make<ast::Tuple>(span_from(start));
  node->elts = seq<ast::expr*>(targets);
  node->ctx = ExprContext::Del;
  return node;
}

}  // namespace graphmend
