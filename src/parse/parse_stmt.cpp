// Statements, blocks, function parameters and PEP 695 type parameters.
//
// Follows CPython's Grammar/python.gram (statements, simple_stmts, compound_stmt and the
// rules below them). Where the grammar tries alternatives, this code looks ahead or uses
// checkpoint()/restore(); the invalid_* rules of the grammar become the specific error
// messages recorded at the point where the valid alternatives stop matching.
#include <array>
#include <string>
#include <vector>

#include "parse/parser_impl.h"

namespace graphmend {

namespace {

using ast::ExprContext;
using ast::OperatorKind;

bool augassign_operator(TokenKind kind, OperatorKind* op) {
  static constexpr struct {
    TokenKind token;
    OperatorKind op;
  } kAugmented[] = {
      {TokenKind::PlusEqual, OperatorKind::Add},
      {TokenKind::MinEqual, OperatorKind::Sub},
      {TokenKind::StarEqual, OperatorKind::Mult},
      {TokenKind::AtEqual, OperatorKind::MatMult},
      {TokenKind::SlashEqual, OperatorKind::Div},
      {TokenKind::PercentEqual, OperatorKind::Mod},
      {TokenKind::AmperEqual, OperatorKind::BitAnd},
      {TokenKind::VBarEqual, OperatorKind::BitOr},
      {TokenKind::CircumflexEqual, OperatorKind::BitXor},
      {TokenKind::LeftShiftEqual, OperatorKind::LShift},
      {TokenKind::RightShiftEqual, OperatorKind::RShift},
      {TokenKind::DoubleStarEqual, OperatorKind::Pow},
      {TokenKind::DoubleSlashEqual, OperatorKind::FloorDiv},
  };
  for (const auto& entry : kAugmented) {
    if (entry.token == kind) {
      *op = entry.op;
      return true;
    }
  }
  return false;
}

bool is_single_target(const ast::expr* e) {
  return ast::is<ast::Name>(e) || ast::is<ast::Attribute>(e) || ast::is<ast::Subscript>(e);
}

}  // namespace

// ------------------------------------------------------------------------------ blocks

ast::Seq<ast::stmt*> Parser::parse_statements_until(TokenKind end) {
  std::vector<ast::stmt*> out;
  while (!failed() && !at(end) && !at(TokenKind::EndMarker)) {
    if (!parse_statement(out)) break;
  }
  return seq<ast::stmt*>(out);
}

ast::Seq<ast::stmt*> Parser::parse_block() { return parse_block_after(nullptr, mark()); }

ast::Seq<ast::stmt*> Parser::parse_block_after(const char* what, size_t keyword) {
  if (!at(TokenKind::Newline)) {
    std::vector<ast::stmt*> out;
    parse_simple_stmts(out);
    return seq<ast::stmt*>(out);
  }
  if (!at(TokenKind::Indent, 1)) {
    advance();  // the error points at the first token of the next line
    std::string message = "expected an indented block";
    if (what != nullptr) {
      message += std::string(" after ") + what + " on line " +
                 std::to_string(source_.line_col(tokens_[keyword].begin).line);
    }
    if (at(TokenKind::Error)) {
      fail_here(message);
      return {};
    }
    // fail_here picks CPython's location (end of input included); the error is an
    // IndentationError.
    fail_here(message);
    if (error_ && error_->message == message) error_->code = codes::kIndentationError;
    return {};
  }
  advance();
  advance();
  ast::Seq<ast::stmt*> body = parse_statements_until(TokenKind::Dedent);
  if (failed()) return body;
  if (!accept(TokenKind::Dedent)) fail_here("invalid syntax");
  return body;
}

bool Parser::parse_statement(std::vector<ast::stmt*>& out) {
  if (at(TokenKind::Indent)) {
    // CPython reports it one column before the first token of the indented line.
    uint32_t first = peek(1).begin;
    uint32_t where = first > peek().begin ? first - 1 : first;
    fail({where, where}, "unexpected indent", codes::kIndentationError);
    return false;
  }
  if (at(TokenKind::Error)) {
    fail_here("invalid syntax");
    return false;
  }
  bool handled = false;
  ast::stmt* compound = parse_compound_stmt(&handled);
  if (handled) {
    if (compound == nullptr) return false;
    out.push_back(compound);
    return true;
  }
  return parse_simple_stmts(out);
}

// `simple_stmts`: ';'.simple_stmt+ [';'] NEWLINE
bool Parser::parse_simple_stmts(std::vector<ast::stmt*>& out) {
  for (;;) {
    ast::stmt* s = parse_simple_stmt();
    if (s == nullptr) {
      if (!failed()) fail_here("invalid syntax");
      return false;
    }
    out.push_back(s);
    if (!accept(TokenKind::Semi) || at(TokenKind::Newline)) break;
  }
  if (accept(TokenKind::Newline)) return true;
  fail_here("invalid syntax");
  return false;
}

// Records "expected ':'" (zero-width, where CPython puts it) for a header that ends
// before its colon, and "invalid syntax" for anything else in its place.
bool Parser::expect_header_colon(bool forced) {
  if (accept(TokenKind::Colon)) return true;
  if (at(TokenKind::Newline)) {
    uint32_t at_newline = peek().begin;
    fail({at_newline, at_newline}, "expected ':'");
  } else if (forced) {
    fail_here("expected ':'");
  } else {
    fail_here("invalid syntax");
  }
  return false;
}

// --------------------------------------------------------------------- simple statements

ast::stmt* Parser::parse_simple_stmt() {
  size_t start = mark();
  switch (peek().kind) {
    case TokenKind::Kw_pass:
      advance();
      return make<ast::Pass>(span_from(start));
    case TokenKind::Kw_break:
      advance();
      return make<ast::Break>(span_from(start));
    case TokenKind::Kw_continue:
      advance();
      return make<ast::Continue>(span_from(start));
    case TokenKind::Kw_return: {
      advance();
      ast::expr* value = nullptr;
      if (!at(TokenKind::Newline) && !at(TokenKind::Semi)) {
        value = parse_star_expressions();
        if (value == nullptr) return nullptr;
      }
      auto* node = make<ast::Return>(span_from(start));
      node->value = value;
      return node;
    }
    case TokenKind::Kw_raise: {
      advance();
      ast::expr* exc = nullptr;
      ast::expr* cause = nullptr;
      if (!at(TokenKind::Newline) && !at(TokenKind::Semi)) {
        exc = parse_expression();
        if (exc == nullptr) return nullptr;
        if (accept(TokenKind::Kw_from)) {
          cause = parse_expression();
          if (cause == nullptr) return nullptr;
        }
      }
      auto* node = make<ast::Raise>(span_from(start));
      node->exc = exc;
      node->cause = cause;
      return node;
    }
    case TokenKind::Kw_del:
      return parse_del_stmt();
    case TokenKind::Kw_assert: {
      advance();
      ast::expr* test = parse_expression();
      if (test == nullptr) return nullptr;
      ast::expr* msg = nullptr;
      if (accept(TokenKind::Comma)) {
        msg = parse_expression();
        if (msg == nullptr) return nullptr;
      }
      auto* node = make<ast::Assert>(span_from(start));
      node->test = test;
      node->msg = msg;
      return node;
    }
    case TokenKind::Kw_import:
      return parse_import_name();
    case TokenKind::Kw_from:
      return parse_import_from();
    case TokenKind::Kw_global:
    case TokenKind::Kw_nonlocal:
      return parse_global_or_nonlocal();
    default:
      break;
  }
  if (options_.version.at_least(3, 12) && at_soft_keyword("type") && at(TokenKind::Name, 1)) {
    return parse_type_alias();
  }
  return parse_expression_stmt();
}

ast::expr* Parser::parse_annotated_rhs() {
  return at(TokenKind::Kw_yield) ? parse_yield_expr() : parse_star_expressions();
}

// assignment (plain, chained, augmented, annotated) or an expression statement.
ast::stmt* Parser::parse_expression_stmt() {
  size_t start = mark();
  if (at(TokenKind::Name) && at(TokenKind::Colon, 1)) {
    // NAME ':' expression ['=' annotated_rhs]: the only form with simple = 1.
    auto* target = make<ast::Name>(token_span(start));
    target->id = identifier(peek());
    target->ctx = ExprContext::Store;
    advance();
    advance();
    return finish_ann_assign(start, target, 1);
  }
  bool at_yield_start = at(TokenKind::Kw_yield);
  ast::expr* first = parse_annotated_rhs();
  if (first == nullptr) return nullptr;

  if (at(TokenKind::Colon)) {
    if (is_single_target(first)) {
      if (!set_context(first, ExprContext::Store)) return nullptr;
      advance();
      return finish_ann_assign(start, first, 0);
    }
    if (ast::is<ast::Tuple>(first) || ast::is<ast::List>(first)) {
      const ast::expr* where = first;
      auto* tuple = ast::as<ast::Tuple>(first);
      // An unparenthesized tuple is reported at its first element.
      if (tuple != nullptr && tuple->begin == tokens_[start].begin && !at(TokenKind::LPar) &&
          tokens_[start].kind != TokenKind::LPar && !tuple->elts.empty()) {
        where = tuple->elts[0];
      }
      return fail(where->span(), std::string("only single target (not ") +
                                     (ast::is<ast::Tuple>(first) ? "tuple" : "list") +
                                     ") can be annotated");
    }
    return fail(first->span(), "illegal target for annotation");
  }

  if (at(TokenKind::Equal)) {
    std::vector<ast::expr*> targets;
    ast::expr* value = first;
    bool bare_yield = at_yield_start;
    while (at(TokenKind::Equal)) {
      if (bare_yield) return fail(value->span(), "assignment to yield expression not possible");
      Checkpoint cp = checkpoint();
      size_t equal = mark();
      advance();  // past '=' so that set_context names the bad target plainly
      if (!set_context(value, ExprContext::Store)) {
        reset(equal);
        if (targets.empty()) report_assign_here(start, value, cp);
        if (!failed()) fail(value->span(), "invalid syntax");
        return nullptr;
      }
      targets.push_back(value);
      bare_yield = at(TokenKind::Kw_yield);
      value = parse_annotated_rhs();
      if (value == nullptr) return nullptr;
    }
    auto* node = make<ast::Assign>(span_from(start));
    node->targets = seq<ast::expr*>(targets);
    node->value = value;
    return node;
  }

  OperatorKind op;
  if (augassign_operator(peek().kind, &op)) {
    if (!is_single_target(first)) {
      return fail(first->span(), std::string("'") + expr_name(first) +
                                     "' is an illegal expression for augmented assignment");
    }
    if (!set_context(first, ExprContext::Store)) return nullptr;
    advance();
    ast::expr* value = parse_annotated_rhs();
    if (value == nullptr) return nullptr;
    auto* node = make<ast::AugAssign>(span_from(start));
    node->target = first;
    node->op = op;
    node->value = value;
    return node;
  }

  if (!at(TokenKind::Newline) && !at(TokenKind::Semi)) report_legacy_call(first);
  auto* node = make<ast::Expr>(span_from(start));
  node->value = first;
  return node;
}

// The leftmost atom of a bitwise_or-shaped expression (what a `!(list | tuple | ...)`
// lookahead at its first token sees).
static const ast::expr* leftmost_operand(const ast::expr* e) {
  for (;;) {
    if (auto* a = ast::as<ast::Attribute>(e)) {
      e = a->value;
    } else if (auto* s = ast::as<ast::Subscript>(e)) {
      e = s->value;
    } else if (auto* c = ast::as<ast::Call>(e)) {
      e = c->func;
    } else if (auto* b = ast::as<ast::BinOp>(e)) {
      e = b->left;
    } else {
      return e;
    }
  }
}

// CPython reaches invalid_named_expression before invalid_assignment when the first
// target (or the last item of an unparenthesized first-target tuple) is a bitwise_or
// followed by '=' and a bitwise_or: "cannot assign to X here. Maybe you meant '=='...".
// `cp` is the checkpoint from before set_context recorded its own error.
void Parser::report_assign_here(size_t start, ast::expr* target, const Checkpoint& cp) {
  if (cp.had_error) return;
  size_t equal = mark();
  ast::expr* candidate = target;
  if (auto* tuple = ast::as<ast::Tuple>(target);
      tuple != nullptr && has_top_level_comma(start, equal)) {
    if (tokens_[equal - 1].kind == TokenKind::Comma || tuple->elts.empty()) return;
    candidate = tuple->elts[tuple->elts.size - 1];
  }
  switch (candidate->kind) {
    case ast::Kind::Compare:
    case ast::Kind::BoolOp:
    case ast::Kind::IfExp:
    case ast::Kind::Lambda:
    case ast::Kind::Starred:
      return;
    case ast::Kind::UnaryOp:
      if (static_cast<ast::UnaryOp*>(candidate)->op == ast::UnaryOpKind::Not) return;
      break;
    case ast::Kind::NamedExpr:
    case ast::Kind::Yield:
    case ast::Kind::YieldFrom:
      // Only inside parentheses can these be a bitwise_or.
      if (candidate->begin == 0 || tokens_[start].begin == candidate->begin) return;
      break;
    default:
      break;
  }
  const ast::expr* left = leftmost_operand(candidate);
  if (ast::is<ast::List>(left) || ast::is<ast::Tuple>(left) || ast::is<ast::GeneratorExp>(left)) {
    return;
  }
  if (auto* c = ast::as<ast::Constant>(left)) {
    using Type = ast::ConstantValue::Type;
    if (c->value.type == Type::None || c->value.type == Type::True ||
        c->value.type == Type::False) {
      return;
    }
  }
  Checkpoint probe = checkpoint();
  advance();
  ast::expr* value = at(TokenKind::Kw_yield) ? nullptr : parse_bitwise_or();
  bool applies = value != nullptr && !at(TokenKind::Equal) && !at(TokenKind::ColonEqual);
  Span value_span = value != nullptr ? value->span() : Span{};
  restore(probe);
  reset(equal);
  if (!applies) return;
  restore(cp);
  if (ast::is<ast::Name>(candidate)) {
    fail({candidate->begin, value_span.end},
         "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
    return;
  }
  fail(candidate->span(), std::string("cannot assign to ") + expr_name(candidate) +
                              " here. Maybe you meant '==' instead of '='?");
}

// `print x` / `exec x`: CPython's invalid_legacy_expression.
void Parser::report_legacy_call(ast::expr* first) {
  auto* name = ast::as<ast::Name>(first);
  if (name == nullptr || (name->id != "print" && name->id != "exec")) return;
  if (at(TokenKind::LPar) || at(TokenKind::Error)) return;
  Checkpoint cp = checkpoint();
  ast::expr* rest = parse_star_expressions();
  restore(cp);
  if (rest == nullptr) return;
  std::string id(name->id);
  fail({first->begin, rest->end},
       "Missing parentheses in call to '" + id + "'. Did you mean " + id + "(...)?");
}

ast::stmt* Parser::finish_ann_assign(size_t start, ast::expr* target, int simple) {
  ast::expr* annotation = parse_expression();
  if (annotation == nullptr) return nullptr;
  ast::expr* value = nullptr;
  if (accept(TokenKind::Equal)) {
    value = parse_annotated_rhs();
    if (value == nullptr) return nullptr;
  }
  auto* node = make<ast::AnnAssign>(span_from(start));
  node->target = target;
  node->annotation = annotation;
  node->value = value;
  node->simple = simple;
  return node;
}

// 'del' del_targets &(';' | NEWLINE), else CPython's invalid_del_stmt.
ast::stmt* Parser::parse_del_stmt() {
  size_t start = mark();
  advance();
  Checkpoint cp = checkpoint();
  ast::expr* targets = parse_del_targets();
  if (targets != nullptr && (at(TokenKind::Semi) || at(TokenKind::Newline))) {
    auto* node = make<ast::Delete>(span_from(start));
    auto* tuple = ast::as<ast::Tuple>(targets);
    if (tuple != nullptr && has_top_level_comma(start + 1, mark())) {
      node->targets = tuple->elts;  // `del a, b` lists its targets; `del (a, b)` is one
    } else {
      std::array<ast::expr*, 1> single{targets};
      node->targets = seq<ast::expr*>(single);
    }
    return node;
  }
  // invalid_del_stmt: 'del' star_expressions, naming what cannot be deleted; otherwise
  // the error is where the targets stopped.
  size_t stop = targets != nullptr ? mark() : 0;
  restore(cp);
  ast::expr* value = parse_star_expressions();
  if (value != nullptr && !set_context(value, ExprContext::Del)) return nullptr;
  if (stop != 0) {
    restore(cp);
    reset(stop);
  }
  if (!failed()) fail_here("invalid syntax");
  return nullptr;
}

// Whether tokens [from, to) hold a comma outside any brackets.
bool Parser::has_top_level_comma(size_t from, size_t to) const {
  int depth = 0;
  for (size_t i = from; i < to && i < tokens_.size(); ++i) {
    switch (tokens_[i].kind) {
      case TokenKind::LPar:
      case TokenKind::LSqb:
      case TokenKind::LBrace:
        ++depth;
        break;
      case TokenKind::RPar:
      case TokenKind::RSqb:
      case TokenKind::RBrace:
        --depth;
        break;
      case TokenKind::Comma:
        if (depth == 0) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

// 'global' / 'nonlocal' ','.NAME+
ast::stmt* Parser::parse_global_or_nonlocal() {
  size_t start = mark();
  bool global = advance().kind == TokenKind::Kw_global;
  std::vector<std::string_view> names;
  do {
    if (!at(TokenKind::Name)) return fail_here("invalid syntax");
    names.push_back(identifier(advance()));
  } while (accept(TokenKind::Comma));
  if (global) {
    auto* node = make<ast::Global>(span_from(start));
    node->names = seq<std::string_view>(names);
    return node;
  }
  auto* node = make<ast::Nonlocal>(span_from(start));
  node->names = seq<std::string_view>(names);
  return node;
}

// dotted_name: NAME ('.' NAME)*, joined with dots.
bool Parser::parse_dotted_name(std::string_view* out) {
  if (!at(TokenKind::Name)) {
    fail_here("invalid syntax");
    return false;
  }
  std::string_view first = identifier(advance());
  if (!at(TokenKind::Dot)) {
    *out = first;
    return true;
  }
  std::string joined(first);
  while (at(TokenKind::Dot)) {
    advance();
    if (!at(TokenKind::Name)) {
      fail_here("invalid syntax");
      return false;
    }
    joined += '.';
    joined += identifier(advance());
  }
  *out = arena_.copy(joined);
  return true;
}

// dotted_as_name (dotted = true) or import_from_as_name: NAME ['as' NAME].
ast::alias* Parser::parse_alias(bool dotted) {
  size_t start = mark();
  std::string_view name;
  if (dotted) {
    if (!parse_dotted_name(&name)) return nullptr;
  } else {
    if (!at(TokenKind::Name)) return fail_here("invalid syntax");
    name = identifier(advance());
  }
  std::string_view asname;
  if (accept(TokenKind::Kw_as)) {
    if (!at(TokenKind::Name)) return fail_here("invalid syntax");
    asname = identifier(advance());
  }
  auto* node = make<ast::alias>(span_from(start));
  node->name = name;
  node->asname = asname;
  return node;
}

ast::stmt* Parser::parse_import_name() {
  size_t start = mark();
  advance();
  std::vector<ast::alias*> names;
  do {
    ast::alias* a = parse_alias(true);
    if (a == nullptr) return nullptr;
    names.push_back(a);
  } while (accept(TokenKind::Comma));
  auto* node = make<ast::Import>(span_from(start));
  node->names = seq<ast::alias*>(names);
  return node;
}

ast::stmt* Parser::parse_import_from() {
  size_t start = mark();
  advance();
  int level = 0;
  for (;;) {
    if (accept(TokenKind::Dot)) {
      level += 1;
    } else if (accept(TokenKind::Ellipsis)) {
      level += 3;
    } else {
      break;
    }
  }
  std::string_view module;
  if (!at(TokenKind::Kw_import) || level == 0) {
    if (!parse_dotted_name(&module)) return nullptr;
  }
  if (!accept(TokenKind::Kw_import)) return fail_here("invalid syntax");

  std::vector<ast::alias*> names;
  if (at(TokenKind::Star)) {
    size_t star = mark();
    advance();
    auto* a = make<ast::alias>(span_from(star));
    a->name = "*";
    names.push_back(a);
  } else {
    bool parenthesized = accept(TokenKind::LPar);
    for (;;) {
      ast::alias* a = parse_alias(false);
      if (a == nullptr) return nullptr;
      names.push_back(a);
      if (!at(TokenKind::Comma)) break;
      advance();
      if (parenthesized && at(TokenKind::RPar)) break;
      if (!parenthesized && at(TokenKind::Newline)) {
        return fail({peek().begin, peek().begin},
                    "trailing comma not allowed without surrounding parentheses");
      }
    }
    if (parenthesized && !accept(TokenKind::RPar)) return fail_here("invalid syntax");
  }
  auto* node = make<ast::ImportFrom>(span_from(start));
  node->module = module;
  node->names = seq<ast::alias*>(names);
  node->level = level;
  return node;
}

// 3.12: "type" NAME [type_params] '=' expression
ast::stmt* Parser::parse_type_alias() {
  size_t start = mark();
  advance();
  auto* name = make<ast::Name>(peek().span());
  name->id = identifier(advance());
  name->ctx = ExprContext::Store;
  ast::Seq<ast::type_param*> params = parse_type_params_opt();
  if (failed()) return nullptr;
  if (!accept(TokenKind::Equal)) return fail_here("invalid syntax");
  ast::expr* value = parse_expression();
  if (value == nullptr) return nullptr;
  auto* node = make<ast::TypeAlias>(span_from(start));
  node->name = name;
  node->type_params = params;
  node->value = value;
  return node;
}

// ------------------------------------------------------------------- compound statements

ast::stmt* Parser::parse_compound_stmt(bool* handled) {
  *handled = true;
  switch (peek().kind) {
    case TokenKind::At:
      return parse_decorated();
    case TokenKind::Kw_def:
      return parse_function_def(mark(), {});
    case TokenKind::Kw_class:
      return parse_class_def(mark(), {});
    case TokenKind::Kw_if:
      return parse_if_stmt();
    case TokenKind::Kw_while:
      return parse_while_stmt();
    case TokenKind::Kw_for:
      return parse_for_stmt();
    case TokenKind::Kw_with:
      return parse_with_stmt();
    case TokenKind::Kw_try:
      return parse_try_stmt();
    case TokenKind::Kw_async:
      if (at(TokenKind::Kw_def, 1)) return parse_function_def(mark(), {});
      if (at(TokenKind::Kw_for, 1)) return parse_for_stmt();
      if (at(TokenKind::Kw_with, 1)) return parse_with_stmt();
      advance();
      return fail_here("invalid syntax");
    default:
      break;
  }
  if (at_soft_keyword("match")) return parse_match_stmt(handled);
  *handled = false;
  return nullptr;
}

// decorators: ('@' named_expression NEWLINE)+, then a def or class.
ast::stmt* Parser::parse_decorated() {
  std::vector<ast::expr*> decorators;
  while (accept(TokenKind::At)) {
    ast::expr* d = parse_named_expression();
    if (d == nullptr) return nullptr;
    if (!accept(TokenKind::Newline)) return fail_here("invalid syntax");
    decorators.push_back(d);
  }
  ast::Seq<ast::expr*> list = seq<ast::expr*>(decorators);
  if (at(TokenKind::Kw_def) || (at(TokenKind::Kw_async) && at(TokenKind::Kw_def, 1))) {
    return parse_function_def(mark(), list);
  }
  if (at(TokenKind::Kw_class)) return parse_class_def(mark(), list);
  return fail_here("invalid syntax");
}

ast::stmt* Parser::parse_function_def(size_t start, ast::Seq<ast::expr*> decorators) {
  bool is_async = accept(TokenKind::Kw_async);
  size_t def_token = mark();
  advance();  // 'def'
  if (!at(TokenKind::Name)) return fail_here("invalid syntax");
  std::string_view name = identifier(advance());
  ast::Seq<ast::type_param*> type_params = parse_type_params_opt();
  if (failed()) return nullptr;
  if (!accept(TokenKind::LPar)) return fail_here("expected '('");
  ast::arguments* args = parse_parameters(false, TokenKind::RPar);
  if (failed()) return nullptr;
  if (!accept(TokenKind::RPar)) return fail_here("invalid syntax");
  ast::expr* returns = nullptr;
  if (accept(TokenKind::RArrow)) {
    returns = parse_expression();
    if (returns == nullptr) return nullptr;
  }
  if (!expect_header_colon(true)) return nullptr;
  ast::Seq<ast::stmt*> body = parse_block_after("function definition", def_token);
  if (failed()) return nullptr;
  return make_twin<ast::FunctionDef, ast::AsyncFunctionDef>(is_async, start, [&](auto* node) {
    node->name = name;
    node->args = args;
    node->body = body;
    node->decorator_list = decorators;
    node->returns = returns;
    node->type_params = type_params;
  });
}

ast::stmt* Parser::parse_class_def(size_t start, ast::Seq<ast::expr*> decorators) {
  advance();  // 'class'
  if (!at(TokenKind::Name)) return fail_here("invalid syntax");
  std::string_view name = identifier(advance());
  ast::Seq<ast::type_param*> type_params = parse_type_params_opt();
  if (failed()) return nullptr;
  std::vector<ast::expr*> bases;
  std::vector<ast::keyword*> keywords;
  size_t lpar = mark();
  if (accept(TokenKind::LPar)) {
    if (!at(TokenKind::RPar) && !parse_call_arguments(bases, keywords)) {
      if (!failed()) fail_here("invalid syntax");
      return nullptr;
    }
    if (!accept(TokenKind::RPar)) return fail_here("invalid syntax");
    // `class C(x for x in y)`: a call may take a bare generator expression, a class
    // statement may not (its parentheses hold `arguments`, not a call).
    if (bases.size() == 1 && keywords.empty() && ast::is<ast::GeneratorExp>(bases[0]) &&
        bases[0]->begin == tokens_[lpar].begin) {
      auto* genexp = static_cast<ast::GeneratorExp*>(bases[0]);
      size_t after = lpar;
      while (after < tokens_.size() && tokens_[after].begin < genexp->elt->end) ++after;
      return fail(token_span(after), "invalid syntax");
    }
  }
  if (!expect_header_colon(false)) return nullptr;
  ast::Seq<ast::stmt*> body = parse_block_after("class definition", start);
  if (failed()) return nullptr;
  auto* node = make<ast::ClassDef>(span_from(start));
  node->name = name;
  node->bases = seq<ast::expr*>(bases);
  node->keywords = seq<ast::keyword*>(keywords);
  node->body = body;
  node->decorator_list = decorators;
  node->type_params = type_params;
  return node;
}

// if_stmt / elif_stmt: an `elif` becomes an If nested in orelse, spanning from `elif`.
// Built in a loop, not by recursion, so that long elif chains cannot exhaust the stack.
ast::stmt* Parser::parse_if_stmt() {
  std::vector<ast::If*> chain;  // the `if` and each `elif`, outermost first
  std::vector<size_t> starts;
  for (;;) {
    size_t start = mark();
    bool is_elif = advance().kind == TokenKind::Kw_elif;
    ast::expr* test = parse_named_expression();
    if (test == nullptr) return nullptr;
    if (!expect_header_colon(false)) return nullptr;
    ast::Seq<ast::stmt*> body =
        parse_block_after(is_elif ? "'elif' statement" : "'if' statement", start);
    if (failed()) return nullptr;
    auto* node = make<ast::If>(Span{});
    node->test = test;
    node->body = body;
    chain.push_back(node);
    starts.push_back(start);
    if (!at(TokenKind::Kw_elif)) break;
  }
  ast::Seq<ast::stmt*> orelse = parse_else_block_opt();
  if (failed()) return nullptr;
  // Every link ends where the whole chain ends.
  for (size_t i = chain.size(); i-- > 0;) {
    Span span = span_from(starts[i]);
    chain[i]->begin = span.begin;
    chain[i]->end = span.end;
    chain[i]->orelse = orelse;
    std::array<ast::stmt*, 1> single{chain[i]};
    orelse = seq<ast::stmt*>(single);
  }
  return chain.front();
}

// else_block: 'else' &&':' block; empty when there is no `else`.
ast::Seq<ast::stmt*> Parser::parse_else_block_opt() {
  if (!at(TokenKind::Kw_else)) return {};
  size_t keyword = mark();
  advance();
  if (!expect_header_colon(true)) return {};
  return parse_block_after("'else' statement", keyword);
}

ast::stmt* Parser::parse_while_stmt() {
  size_t start = mark();
  advance();
  ast::expr* test = parse_named_expression();
  if (test == nullptr) return nullptr;
  if (!expect_header_colon(false)) return nullptr;
  ast::Seq<ast::stmt*> body = parse_block_after("'while' statement", start);
  if (failed()) return nullptr;
  ast::Seq<ast::stmt*> orelse = parse_else_block_opt();
  if (failed()) return nullptr;
  auto* node = make<ast::While>(span_from(start));
  node->test = test;
  node->body = body;
  node->orelse = orelse;
  return node;
}

// ['async'] 'for' star_targets 'in' ~ star_expressions ':' block [else_block]
ast::stmt* Parser::parse_for_stmt() {
  size_t start = mark();
  bool is_async = accept(TokenKind::Kw_async);
  size_t for_token = mark();
  advance();
  Checkpoint cp = checkpoint();
  ast::expr* target = parse_star_targets();
  if (target == nullptr || !at(TokenKind::Kw_in)) {
    // CPython's invalid_for_target: name the part that cannot be assigned to.
    restore(cp);
    ast::expr* e = parse_star_expressions();
    if (e == nullptr) return nullptr;
    if (ast::expr* bad = find_invalid_target(e, true)) {
      if (auto* compare = ast::as<ast::Compare>(bad); compare != nullptr && bad == e) {
        // _PyPegen_get_invalid_target gives up on a comparison other than `in`.
        size_t op = cp.pos;
        while (op + 1 < tokens_.size() && tokens_[op].begin < compare->left->end) ++op;
        return fail(token_span(op), "invalid syntax");
      }
      return fail(bad->span(), std::string("cannot assign to ") + expr_name(bad));
    }
    return fail_here("invalid syntax");
  }
  advance();  // 'in'
  ast::expr* iter = parse_star_expressions();
  if (iter == nullptr) return nullptr;
  if (!expect_header_colon(false)) return nullptr;
  ast::Seq<ast::stmt*> body = parse_block_after("'for' statement", for_token);
  if (failed()) return nullptr;
  ast::Seq<ast::stmt*> orelse = parse_else_block_opt();
  if (failed()) return nullptr;
  return make_twin<ast::For, ast::AsyncFor>(is_async, start, [&](auto* node) {
    node->target = target;
    node->iter = iter;
    node->body = body;
    node->orelse = orelse;
  });
}

// The target after `as` in a with item: star_target followed by ',' | ')' | ':'.
ast::expr* Parser::parse_with_target() {
  size_t start = mark();
  if (accept(TokenKind::Star)) {
    if (at(TokenKind::Star)) return fail_here("invalid syntax");
    ast::expr* inner = parse_with_target();
    if (inner == nullptr) return nullptr;
    auto* starred = make<ast::Starred>(span_from(start));
    starred->value = inner;
    starred->ctx = ExprContext::Store;
    return starred;
  }
  Checkpoint cp = checkpoint();
  ast::expr* target = parse_bitwise_or();
  // At a NEWLINE the header lacks its ':', which the caller reports.
  if (target != nullptr && (at(TokenKind::Comma) || at(TokenKind::RPar) || at(TokenKind::Colon) ||
                            at(TokenKind::Newline))) {
    if (set_context(target, ExprContext::Store)) return target;
    return nullptr;
  }
  // invalid_with_item: expression 'as' expression &(',' | ')' | ':')
  restore(cp);
  ast::expr* e = parse_expression();
  if (e == nullptr) return nullptr;
  if (at(TokenKind::Comma) || at(TokenKind::RPar) || at(TokenKind::Colon)) {
    if (set_context(e, ExprContext::Store) || !failed()) fail(e->span(), "invalid syntax");
    return nullptr;
  }
  return fail_here("invalid syntax");
}

ast::withitem* Parser::parse_with_item() {
  size_t start = mark();
  ast::expr* context = parse_expression();
  if (context == nullptr) return nullptr;
  ast::expr* vars = nullptr;
  if (accept(TokenKind::Kw_as)) {
    vars = parse_with_target();
    if (vars == nullptr) return nullptr;
  }
  auto* item = make<ast::withitem>(span_from(start));
  item->context_expr = context;
  item->optional_vars = vars;
  return item;
}

// ','.with_item+, with a trailing comma and ')' only in the parenthesized form.
bool Parser::parse_with_items(bool parenthesized, std::vector<ast::withitem*>& items) {
  for (;;) {
    ast::withitem* item = parse_with_item();
    if (item == nullptr) return false;
    items.push_back(item);
    if (!accept(TokenKind::Comma)) break;
    if (parenthesized && at(TokenKind::RPar)) break;
  }
  if (parenthesized && !accept(TokenKind::RPar)) {
    fail_here("invalid syntax");
    return false;
  }
  return true;
}

ast::stmt* Parser::parse_with_stmt() {
  size_t start = mark();
  bool is_async = accept(TokenKind::Kw_async);
  size_t with_token = mark();
  advance();
  std::vector<ast::withitem*> items;
  bool parsed = false;
  if (at(TokenKind::LPar)) {
    // 'with' '(' ','.with_item+ ','? ')' ':' first; else the items are expressions that
    // merely start with a parenthesis.
    Checkpoint cp = checkpoint();
    advance();
    if (parse_with_items(true, items) && at(TokenKind::Colon)) {
      parsed = true;
    } else if (!failed() && at(TokenKind::Newline)) {
      expect_header_colon(false);  // invalid_with_stmt: '(' items ')' NEWLINE
      return nullptr;
    } else {
      std::optional<Diagnostic> first_error = error_;
      restore(cp);
      items.clear();
      if (!parse_with_items(false, items)) {
        if (first_error && first_error->message != "invalid syntax" && !cp.had_error) {
          error_ = first_error;
        }
        return nullptr;
      }
      parsed = true;
    }
  }
  if (!parsed && !parse_with_items(false, items)) return nullptr;
  if (!expect_header_colon(false)) return nullptr;
  ast::Seq<ast::stmt*> body = parse_block_after("'with' statement", with_token);
  if (failed()) return nullptr;
  return make_twin<ast::With, ast::AsyncWith>(is_async, start, [&](auto* node) {
    node->items = seq<ast::withitem*>(items);
    node->body = body;
  });
}

ast::excepthandler* Parser::parse_except_block(bool star) {
  size_t start = mark();
  advance();  // 'except'
  if (star) advance();
  ast::expr* type = nullptr;
  std::string_view name;
  if (star && (at(TokenKind::Newline) || at(TokenKind::Colon))) {
    fail_here("expected one or more exception types");
    return nullptr;
  }
  if (!at(TokenKind::Colon) && !at(TokenKind::Newline)) {
    type = parse_expression();
    if (type == nullptr) return nullptr;
    if (at(TokenKind::Comma)) {
      // invalid_except_stmt: 'except' expression ',' expressions ['as' NAME] ':'
      Checkpoint cp = checkpoint();
      advance();
      ast::expr* more = parse_expression();
      while (more != nullptr && accept(TokenKind::Comma)) {
        if (at(TokenKind::Kw_as) || at(TokenKind::Colon)) break;
        more = parse_expression();
      }
      bool reported = false;
      if (more != nullptr) {
        if (accept(TokenKind::Kw_as)) {
          if (!accept(TokenKind::Name)) more = nullptr;
        }
        if (more != nullptr && at(TokenKind::Colon)) reported = true;
      }
      restore(cp);
      if (reported) {
        fail(type->span(), "multiple exception types must be parenthesized");
        return nullptr;
      }
      fail_here("invalid syntax");
      return nullptr;
    }
    if (accept(TokenKind::Kw_as)) {
      if (!at(TokenKind::Name)) {
        fail_here("invalid syntax");
        return nullptr;
      }
      name = identifier(advance());
    }
  }
  if (!expect_header_colon(false)) return nullptr;
  ast::Seq<ast::stmt*> body =
      parse_block_after(star ? "'except*' statement" : "'except' statement", start);
  if (failed()) return nullptr;
  auto* handler = make<ast::ExceptHandler>(span_from(start));
  handler->type = type;
  handler->name = name;
  handler->body = body;
  return handler;
}

ast::stmt* Parser::parse_try_stmt() {
  size_t start = mark();
  advance();
  if (!expect_header_colon(true)) return nullptr;
  ast::Seq<ast::stmt*> body = parse_block_after("'try' statement", start);
  if (failed()) return nullptr;
  std::vector<ast::excepthandler*> handlers;
  bool star_mode = at(TokenKind::Kw_except) && at(TokenKind::Star, 1);
  while (at(TokenKind::Kw_except)) {
    bool star = at(TokenKind::Star, 1);
    if (star != star_mode) {
      Span where = star ? Span{peek().begin, peek(1).end} : peek().span();
      return fail(where, "cannot have both 'except' and 'except*' on the same 'try'");
    }
    ast::excepthandler* handler = parse_except_block(star);
    if (handler == nullptr) return nullptr;
    handlers.push_back(handler);
  }
  ast::Seq<ast::stmt*> orelse;
  if (!handlers.empty()) {
    orelse = parse_else_block_opt();
    if (failed()) return nullptr;
  }
  ast::Seq<ast::stmt*> finalbody;
  if (at(TokenKind::Kw_finally)) {
    size_t keyword = mark();
    advance();
    if (!expect_header_colon(true)) return nullptr;
    finalbody = parse_block_after("'finally' statement", keyword);
    if (failed()) return nullptr;
  } else if (handlers.empty()) {
    size_t next = mark();
    while (tokens_[next].kind == TokenKind::Dedent && next + 1 < tokens_.size()) ++next;
    reset(next);  // the first token after the block, where fail_here reports
    return fail_here("expected 'except' or 'finally' block");
  }
  if (star_mode) {
    auto* node = make<ast::TryStar>(span_from(start));
    node->body = body;
    node->handlers = seq<ast::excepthandler*>(handlers);
    node->orelse = orelse;
    node->finalbody = finalbody;
    return node;
  }
  auto* node = make<ast::Try>(span_from(start));
  node->body = body;
  node->handlers = seq<ast::excepthandler*>(handlers);
  node->orelse = orelse;
  node->finalbody = finalbody;
  return node;
}

// subject_expr: star_named_expression ',' star_named_expressions? | named_expression
ast::expr* Parser::parse_match_subject() {
  size_t start = mark();
  ast::expr* first = parse_star_named_expression();
  if (first == nullptr) return nullptr;
  if (!at(TokenKind::Comma)) {
    if (ast::is<ast::Starred>(first)) return fail_here("invalid syntax");
    return first;
  }
  std::vector<ast::expr*> elts{first};
  while (accept(TokenKind::Comma)) {
    if (at(TokenKind::Colon) || at(TokenKind::Newline)) break;
    ast::expr* e = parse_star_named_expression();
    if (e == nullptr) return nullptr;
    elts.push_back(e);
  }
  auto* tuple = make<ast::Tuple>(span_from(start));
  tuple->elts = seq<ast::expr*>(elts);
  tuple->ctx = ExprContext::Load;
  return tuple;
}

// match_stmt, decided by looking for "match" subject ':' NEWLINE; otherwise `match` is an
// ordinary name and *handled is set to false.
ast::stmt* Parser::parse_match_stmt(bool* handled) {
  size_t start = mark();
  Checkpoint cp = checkpoint();
  advance();
  ast::expr* subject = parse_match_subject();
  if (subject == nullptr || !at(TokenKind::Colon) || !at(TokenKind::Newline, 1)) {
    bool newline_after_subject = subject != nullptr && at(TokenKind::Newline);
    uint32_t newline_at = peek().begin;
    Span match_stop = peek().span();  // how far the match attempt read
    restore(cp);
    *handled = true;
    std::vector<ast::stmt*> simple;
    Checkpoint before = checkpoint();
    if (parse_simple_stmts(simple)) {
      // The caller expects one statement; re-parse through the normal path instead.
      reset(before.pos);
      *handled = false;
      return nullptr;
    }
    if (newline_after_subject && !before.had_error) {
      error_.reset();
      fail({newline_at, newline_at}, "expected ':'");
    } else if (subject != nullptr && !before.had_error && error_ &&
               error_->message == "invalid syntax" && error_->span.begin < match_stop.begin) {
      // A generic error is reported at the furthest token either attempt read.
      error_.reset();
      fail(match_stop, "invalid syntax");
    }
    return nullptr;
  }
  advance();  // ':'
  if (!at(TokenKind::Indent, 1)) {
    advance();
    std::string message = "expected an indented block after 'match' statement on line " +
                          std::to_string(source_.line_col(tokens_[start].begin).line);
    fail_here(message);
    if (error_ && error_->message == message) error_->code = codes::kIndentationError;
    return nullptr;
  }
  advance();
  advance();
  std::vector<ast::match_case*> cases;
  while (at_soft_keyword("case")) {
    ast::match_case* c = parse_case_block();
    if (c == nullptr) return nullptr;
    cases.push_back(c);
  }
  if (cases.empty() || !accept(TokenKind::Dedent)) return fail_here("invalid syntax");
  auto* node = make<ast::Match>(span_from(start));
  node->subject = subject;
  node->cases = seq<ast::match_case*>(cases);
  return node;
}

// "case" patterns guard? ':' block
ast::match_case* Parser::parse_case_block() {
  size_t start = mark();
  advance();
  ast::pattern* pattern = parse_patterns();
  if (pattern == nullptr) return nullptr;
  ast::expr* guard = nullptr;
  if (accept(TokenKind::Kw_if)) {
    guard = parse_named_expression();
    if (guard == nullptr) return nullptr;
  }
  if (!expect_header_colon(false)) return nullptr;
  ast::Seq<ast::stmt*> body = parse_block_after("'case' statement", start);
  if (failed()) return nullptr;
  auto* node = make<ast::match_case>(span_from(start));
  node->pattern = pattern;
  node->guard = guard;
  node->body = body;
  return node;
}

// ------------------------------------------------------------------------ parameters

// param: NAME annotation?  (star_annotation allows `*args: *Ts`)
ast::arg* Parser::parse_param(bool lambda, bool star_annotation) {
  size_t start = mark();
  std::string_view name = identifier(advance());
  ast::expr* annotation = nullptr;
  if (!lambda && accept(TokenKind::Colon)) {
    if (star_annotation && at(TokenKind::Star)) {
      annotation = parse_star_named_expression_no_walrus();
    } else {
      annotation = parse_expression();
    }
    if (annotation == nullptr) return nullptr;
  }
  auto* node = make<ast::arg>(span_from(start));
  node->arg = name;
  node->annotation = annotation;
  return node;
}

// star_expression in an annotation: '*' bitwise_or
ast::expr* Parser::parse_star_named_expression_no_walrus() {
  size_t start = mark();
  advance();
  ast::expr* value = parse_bitwise_or();
  if (value == nullptr) return nullptr;
  auto* starred = make<ast::Starred>(span_from(start));
  starred->value = value;
  starred->ctx = ExprContext::Load;
  return starred;
}

// `(a, b)` in a parameter list: CPython names the mistake when the parentheses hold
// plain names, else it is a generic syntax error.
void Parser::report_parenthesized_params(bool lambda) {
  size_t open = mark();
  size_t i = open + 1;
  bool names = false;
  while (i < tokens_.size() && tokens_[i].kind == TokenKind::Name) {
    names = true;
    ++i;
    if (i < tokens_.size() && tokens_[i].kind == TokenKind::Comma) ++i;
  }
  if (names && i < tokens_.size() && tokens_[i].kind == TokenKind::RPar) {
    fail({tokens_[open].begin, tokens_[i].end},
         lambda ? "Lambda expression parameters cannot be parenthesized"
                : "Function parameters cannot be parenthesized");
    return;
  }
  fail_here("invalid syntax");
}

ast::arguments* Parser::parse_parameters(bool lambda, TokenKind closer) {
  auto* result = make<ast::arguments>(Span{});
  std::vector<ast::arg*> posonly;
  std::vector<ast::arg*> positional;
  std::vector<ast::expr*> defaults;
  std::vector<ast::arg*> kwonly;
  std::vector<ast::expr*> kw_defaults;
  ast::arg* vararg = nullptr;
  ast::arg* kwarg = nullptr;
  bool seen_slash = false;
  bool seen_star = false;
  bool seen_default = false;
  bool only_plain_before = true;  // no default and no '/' yet: "(a)" gets its own message
  const char* non_default_message =
      options_.version.at_least(3, 12)
          ? "parameter without a default follows parameter with a default"
          : "non-default argument follows default argument";

  while (!at(closer) && !failed()) {
    if (kwarg != nullptr) {
      fail_here("arguments cannot follow var-keyword argument");
      break;
    }
    if (at(TokenKind::Slash)) {
      if (seen_star) {
        fail_here("/ must be ahead of *");
      } else if (seen_slash) {
        fail_here("/ may appear only once");
      } else if (positional.empty()) {
        fail_here(at(TokenKind::Comma, 1) ? "at least one argument must precede /"
                                          : "invalid syntax");
      } else if (at(TokenKind::Star, 1)) {
        fail(peek(1).span(), "expected comma between / and *");
      }
      if (failed()) break;
      advance();
      seen_slash = true;
      only_plain_before = false;
      posonly = positional;
      positional.clear();
    } else if (at(TokenKind::Star)) {
      if (seen_star) {
        fail_here("* argument may appear only once");
        break;
      }
      size_t star = mark();
      advance();
      seen_star = true;
      if (at(TokenKind::Name)) {
        vararg = parse_param(lambda, true);
        if (vararg == nullptr) break;
        if (at(TokenKind::Equal)) {
          fail_here("var-positional argument cannot have default value");
          break;
        }
      } else if (at(closer) ||
                 (at(TokenKind::Comma) && (at(closer, 1) || at(TokenKind::DoubleStar, 1)))) {
        // def: at the '*'; lambda: at the token CPython stopped on.
        Span where = !lambda ? token_span(star) : at(closer) ? peek().span() : peek(1).span();
        fail(where, "named arguments must follow bare *");
        break;
      } else if (!at(TokenKind::Comma)) {
        fail_here("invalid syntax");
        break;
      }
    } else if (at(TokenKind::DoubleStar)) {
      advance();
      if (!at(TokenKind::Name)) {
        fail_here("invalid syntax");
        break;
      }
      kwarg = parse_param(lambda, false);
      if (kwarg == nullptr) break;
      if (at(TokenKind::Equal)) {
        fail_here("var-keyword argument cannot have default value");
        break;
      }
    } else if (at(TokenKind::Name)) {
      ast::arg* param = parse_param(lambda, false);
      if (param == nullptr) break;
      ast::expr* value = nullptr;
      if (at(TokenKind::Equal)) {
        if (at(TokenKind::Comma, 1) || at(closer, 1)) {
          fail_here("expected default value expression");
          break;
        }
        advance();
        value = parse_expression();
        if (value == nullptr) break;
      }
      if (seen_star) {
        kwonly.push_back(param);
        kw_defaults.push_back(value);
      } else {
        if (value != nullptr) {
          defaults.push_back(value);
          seen_default = true;
          only_plain_before = false;
        } else if (seen_default) {
          fail(param->span(), non_default_message);
          break;
        }
        positional.push_back(param);
      }
    } else if (at(TokenKind::LPar) && only_plain_before && !seen_star) {
      report_parenthesized_params(lambda);
      break;
    } else {
      fail_here("invalid syntax");
      break;
    }
    if (!accept(TokenKind::Comma)) break;
  }
  if (!failed() && !at(closer)) fail_here("invalid syntax");
  result->posonlyargs = seq<ast::arg*>(posonly);
  result->args = seq<ast::arg*>(positional);
  result->vararg = vararg;
  result->kwonlyargs = seq<ast::arg*>(kwonly);
  result->kw_defaults = seq<ast::expr*>(kw_defaults);
  result->kwarg = kwarg;
  result->defaults = seq<ast::expr*>(defaults);
  return result;
}

// ------------------------------------------------------------------- type parameters

// type_param: NAME [':' expression] | '*' NAME | '**' NAME
ast::type_param* Parser::parse_type_param() {
  size_t start = mark();
  if (at(TokenKind::Star) || at(TokenKind::DoubleStar)) {
    bool tuple = advance().kind == TokenKind::Star;
    if (!at(TokenKind::Name)) return fail_here("invalid syntax");
    std::string_view name = identifier(advance());
    if (at(TokenKind::Colon)) {
      uint32_t colon = peek().begin;
      advance();
      ast::expr* bound = parse_expression();
      if (bound == nullptr) return nullptr;
      std::string message =
          ast::is<ast::Tuple>(bound) ? "cannot use constraints with " : "cannot use bound with ";
      message += tuple ? "TypeVarTuple" : "ParamSpec";
      return fail({colon, bound->end}, message);
    }
    if (tuple) {
      auto* node = make<ast::TypeVarTuple>(span_from(start));
      node->name = name;
      return node;
    }
    auto* node = make<ast::ParamSpec>(span_from(start));
    node->name = name;
    return node;
  }
  if (!at(TokenKind::Name)) return fail_here("invalid syntax");
  std::string_view name = identifier(advance());
  ast::expr* bound = nullptr;
  if (accept(TokenKind::Colon)) {
    bound = parse_expression();
    if (bound == nullptr) return nullptr;
  }
  auto* node = make<ast::TypeVar>(span_from(start));
  node->name = name;
  node->bound = bound;
  return node;
}

ast::Seq<ast::type_param*> Parser::parse_type_params_opt() {
  if (!options_.version.at_least(3, 12) || !at(TokenKind::LSqb) || at(TokenKind::RSqb, 1)) {
    return {};
  }
  advance();
  std::vector<ast::type_param*> params;
  for (;;) {
    ast::type_param* p = parse_type_param();
    if (p == nullptr) return {};
    params.push_back(p);
    if (!accept(TokenKind::Comma) || at(TokenKind::RSqb)) break;
  }
  if (!accept(TokenKind::RSqb)) {
    fail_here("invalid syntax");
    return {};
  }
  return seq<ast::type_param*>(params);
}

}  // namespace graphmend
