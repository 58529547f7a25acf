// The abstract syntax tree. Node kinds, struct names and field names mirror CPython's
// `ast` module exactly (see nodes.def); every node records the byte range of the source
// it came from. Nodes live in an Arena and are never destroyed one by one.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/arena.h"
#include "base/source.h"

namespace graphmend::ast {

enum class Kind : uint8_t {
#define AST_NODE(cls, category, positioned, fields) cls,
#include "ast/nodes.def"
};
inline constexpr int kKindCount = 0
#define AST_NODE(cls, category, positioned, fields) +1
#include "ast/nodes.def"
    ;

const char* kind_name(Kind kind);   // CPython's class name, e.g. "FunctionDef"
bool kind_has_position(Kind kind);  // whether ast.dump shows lineno/col_offset/...

enum class ExprContext : uint8_t { Load, Store, Del };
enum class BoolOpKind : uint8_t { And, Or };
enum class OperatorKind : uint8_t {
  Add,
  Sub,
  Mult,
  MatMult,
  Div,
  Mod,
  Pow,
  LShift,
  RShift,
  BitOr,
  BitXor,
  BitAnd,
  FloorDiv
};
enum class UnaryOpKind : uint8_t { Invert, Not, UAdd, USub };
enum class CmpOpKind : uint8_t { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

const char* enum_name(ExprContext value);
const char* enum_name(BoolOpKind value);
const char* enum_name(OperatorKind value);
const char* enum_name(UnaryOpKind value);
const char* enum_name(CmpOpKind value);

// A list in the arena. Items of node lists may be null only where nodes.def says F_OPT_SEQ.
template <class T>
struct Seq {
  T* data = nullptr;
  uint32_t size = 0;

  T* begin() const { return data; }
  T* end() const { return data + size; }
  T& operator[](uint32_t i) const { return data[i]; }
  bool empty() const { return size == 0; }
};

// The value of a Constant or MatchSingleton.
struct ConstantValue {
  enum class Type : uint8_t { None, True, False, Ellipsis, Int, Float, Complex, Str, Bytes };
  Type type = Type::None;
  // Int: the literal as written, underscores removed ("0x1F", "12"); any size.
  // Str: the decoded value as UTF-8 (lone surrogates from escapes encoded as 3 bytes each).
  // Bytes: the decoded bytes.
  std::string_view text;
  double number = 0;  // Float: the value; Complex: the imaginary part (the real part is 0)
};

struct Node {
  Kind kind;
  uint32_t begin = 0;  // byte range in the source
  uint32_t end = 0;
  Span span() const { return {begin, end}; }
};

// The ASDL sum types. Product types (arguments, arg, keyword, ...) are nodes themselves.
struct mod : Node {};
struct stmt : Node {};
struct expr : Node {};
struct pattern : Node {};
struct excepthandler : Node {};
struct type_ignore : Node {};
struct type_param : Node {};

#define GM_AST_BASE_mod mod
#define GM_AST_BASE_stmt stmt
#define GM_AST_BASE_expr expr
#define GM_AST_BASE_pattern pattern
#define GM_AST_BASE_excepthandler excepthandler
#define GM_AST_BASE_type_ignore type_ignore
#define GM_AST_BASE_type_param type_param
#define GM_AST_BASE_comprehension Node
#define GM_AST_BASE_arguments Node
#define GM_AST_BASE_arg Node
#define GM_AST_BASE_keyword Node
#define GM_AST_BASE_alias Node
#define GM_AST_BASE_withitem Node
#define GM_AST_BASE_match_case Node

#define AST_NODE(cls, category, positioned, fields) struct cls;
#include "ast/nodes.def"

#define F_NODE(T, name) ::graphmend::ast::T* name = nullptr;
#define F_OPT(T, name) ::graphmend::ast::T* name = nullptr;
#define F_SEQ(T, name) Seq<::graphmend::ast::T*> name;
#define F_OPT_SEQ(T, name) Seq<::graphmend::ast::T*> name;
#define F_SEQ_SINCE(minor, T, name) Seq<::graphmend::ast::T*> name;
#define F_IDENT(name) std::string_view name;
#define F_OPT_IDENT(name) std::string_view name;
#define F_IDENTS(name) Seq<std::string_view> name;
#define F_CONST(name) ConstantValue name;
#define F_OPT_STR(name) std::string_view name;
#define F_INT(name) int name = 0;
#define F_ENUM(E, name) E name{};
#define F_ENUM_SEQ(E, name) Seq<E> name;
#define AST_NODE(cls, category, positioned, fields) \
  struct cls : GM_AST_BASE_##category {             \
    static constexpr Kind kKind = Kind::cls;        \
    fields                                          \
  };
#include "ast/nodes.def"
#undef F_NODE
#undef F_OPT
#undef F_SEQ
#undef F_OPT_SEQ
#undef F_SEQ_SINCE
#undef F_IDENT
#undef F_OPT_IDENT
#undef F_IDENTS
#undef F_CONST
#undef F_OPT_STR
#undef F_INT
#undef F_ENUM
#undef F_ENUM_SEQ

// Allocates a node of type T covering `span`.
template <class T>
T* make_node(Arena& arena, Span span) {
  T* node = arena.make<T>();
  static_cast<Node*>(node)->kind = T::kKind;  // Constant has a `kind` field of its own
  node->begin = span.begin;
  node->end = span.end;
  return node;
}

template <class T>
bool is(const Node* node) {
  return node != nullptr && node->kind == T::kKind;
}

template <class T>
T* as(Node* node) {
  return is<T>(node) ? static_cast<T*>(node) : nullptr;
}

template <class T>
const T* as(const Node* node) {
  return is<T>(node) ? static_cast<const T*>(node) : nullptr;
}

// A primary (a name, attribute, subscript, call or literal): it reads as written as the
// operand of any operator.
inline bool is_primary(const expr* e) {
  return is<Name>(e) || is<Attribute>(e) || is<Subscript>(e) || is<Call>(e) || is<Constant>(e);
}

// A primary or a comparison: it reads as written as the operand of `and`, `or` and `not`.
inline bool is_condition_operand(const expr* e) { return is_primary(e) || is<Compare>(e); }

// Copies `items` into the arena as a Seq.
template <class T, class Container>
Seq<T> make_seq(Arena& arena, const Container& items) {
  Seq<T> seq;
  seq.size = static_cast<uint32_t>(items.size());
  seq.data = arena.make_array<T>(seq.size);
  uint32_t i = 0;
  for (const auto& item : items) seq.data[i++] = item;
  return seq;
}

// Calls visit(Node*) on each non-null direct child of `node`, in field order.
template <class Visit>
void for_each_child(Node* node, Visit&& visit);

// The same over a const tree: visit(const Node*).
template <class Visit>
void for_each_child(const Node* node, Visit&& visit) {
  for_each_child(const_cast<Node*>(node),
                 [&](Node* child) { visit(static_cast<const Node*>(child)); });
}

// Calls visit(const Seq<stmt*>&) on each statement list nested directly in a compound
// statement and in the same scope (the bodies of if, for, while, with, try and its handlers,
// match cases); not function or class bodies, which are scopes of their own.
template <class Visit>
void for_each_block(const stmt* statement, Visit&& visit);

// for_each_block, and the bodies of functions and classes too: every statement list nested
// directly in `statement`.
template <class Visit>
void for_each_body(const stmt* statement, Visit&& visit) {
  switch (statement->kind) {
    case Kind::FunctionDef:
      visit(static_cast<const FunctionDef*>(statement)->body);
      return;
    case Kind::AsyncFunctionDef:
      visit(static_cast<const AsyncFunctionDef*>(statement)->body);
      return;
    case Kind::ClassDef:
      visit(static_cast<const ClassDef*>(statement)->body);
      return;
    default:
      for_each_block(statement, visit);
  }
}

template <class Visit>
void for_each_block(const stmt* statement, Visit&& visit) {
  auto with_else = [&](const auto* s) {  // if, for, while: the body, then the else block
    visit(s->body);
    visit(s->orelse);
  };
  auto try_blocks = [&](const auto* s) {  // try and try/except*
    visit(s->body);
    for (const excepthandler* h : s->handlers) {
      if (const auto* handler = as<ExceptHandler>(h)) visit(handler->body);
    }
    visit(s->orelse);
    visit(s->finalbody);
  };
  switch (statement->kind) {
    case Kind::If:
      with_else(static_cast<const If*>(statement));
      break;
    case Kind::For:
      with_else(static_cast<const For*>(statement));
      break;
    case Kind::AsyncFor:
      with_else(static_cast<const AsyncFor*>(statement));
      break;
    case Kind::While:
      with_else(static_cast<const While*>(statement));
      break;
    case Kind::With:
      visit(static_cast<const With*>(statement)->body);
      break;
    case Kind::AsyncWith:
      visit(static_cast<const AsyncWith*>(statement)->body);
      break;
    case Kind::Try:
      try_blocks(static_cast<const Try*>(statement));
      break;
    case Kind::TryStar:
      try_blocks(static_cast<const TryStar*>(statement));
      break;
    case Kind::Match:
      for (const match_case* c : static_cast<const Match*>(statement)->cases) visit(c->body);
      break;
    default:
      break;
  }
}

}  // namespace graphmend::ast

#include "ast/ast_visit.inc"
