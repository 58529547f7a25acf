// Private to src/sema: small string and AST helpers shared by the analysis files.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "ast/ast.h"
#include "ast/functions.h"
#include "base/contains.h"

namespace graphmend::sema {

constexpr int kMaxDepth = 400;  // expression recursion limit; deeper trees get "unknown"

inline bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
inline bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// `add_`, `index_add_`: a tensor method that changes its receiver (not `__init__`).
inline bool is_in_place_method(std::string_view name) {
  return name.size() > 1 && name.back() == '_' && name.front() != '_';
}

inline bool in_list(std::string_view name, std::initializer_list<std::string_view> list) {
  return contains(list, name);
}

inline bool in_list(std::string_view name, const std::vector<std::string_view>& list) {
  return contains(list, name);
}

inline bool is_none_constant(const ast::expr* e) {
  const auto* c = ast::as<ast::Constant>(e);
  return c != nullptr && c->value.type == ast::ConstantValue::Type::None;
}

// for_each_child takes a mutable node; the analysis only reads.

// The first positional parameter of a function (self / cls), or empty.
inline std::string_view first_param(const ast::Node* fn) {
  const ast::arguments* args = nullptr;
  if (const auto* f = ast::as<ast::FunctionDef>(fn)) args = f->args;
  if (const auto* f = ast::as<ast::AsyncFunctionDef>(fn)) args = f->args;
  if (args == nullptr) return {};
  if (!args->posonlyargs.empty()) return args->posonlyargs[0]->arg;
  if (!args->args.empty()) return args->args[0]->arg;
  return {};
}

// Whether a function stores an attribute on `self` in its own body (`self.x = ...`,
// `self.x += ...`, `self.a, self.b = ...`), nested definitions aside.
inline bool stores_attribute_on(const ast::Node& fn, std::string_view self) {
  if (self.empty()) return false;
  bool found = false;
  ast::walk_own_body(&fn, [&](const ast::Node* n) {
    const auto* attribute = ast::as<ast::Attribute>(n);
    if (attribute == nullptr || attribute->ctx != ast::ExprContext::Store) return;
    const auto* owner = ast::as<ast::Name>(attribute->value);
    found = found || (owner != nullptr && owner->id == self);
  });
  return found;
}

using ast::decorators_of;
using ast::is_staticmethod;

inline std::string_view function_name(const ast::Node* fn) {
  if (const auto* f = ast::as<ast::FunctionDef>(fn)) return f->name;
  if (const auto* f = ast::as<ast::AsyncFunctionDef>(fn)) return f->name;
  return {};
}

// A parameter of a function, by name, with its default (null when it has none).
struct Parameter {
  const ast::arg* arg = nullptr;
  const ast::expr* default_value = nullptr;
};

inline std::optional<Parameter> find_parameter(const ast::arguments& args, std::string_view name) {
  std::vector<const ast::arg*> positional(args.posonlyargs.begin(), args.posonlyargs.end());
  positional.insert(positional.end(), args.args.begin(), args.args.end());
  size_t first_default = positional.size() - args.defaults.size;  // they align with the last
  for (size_t i = 0; i < positional.size(); ++i) {
    if (positional[i]->arg != name) continue;
    return Parameter{positional[i],
                     i >= first_default ? args.defaults[i - first_default] : nullptr};
  }
  for (uint32_t i = 0; i < args.kwonlyargs.size; ++i)
    if (args.kwonlyargs[i]->arg == name) return Parameter{args.kwonlyargs[i], args.kw_defaults[i]};
  return std::nullopt;
}

// The parameter `name` of `function` (a def or async def, as a scope's node), if it is one.
inline std::optional<Parameter> find_parameter(const ast::Node* function, std::string_view name) {
  const ast::arguments* args = nullptr;
  if (const auto* f = ast::as<ast::FunctionDef>(function)) args = f->args;
  if (const auto* f = ast::as<ast::AsyncFunctionDef>(function)) args = f->args;
  return args ? find_parameter(*args, name) : std::nullopt;
}

inline const ast::keyword* find_keyword(const ast::Call& call, std::string_view name) {
  for (const ast::keyword* k : call.keywords) {
    if (k->arg == name) return k;
  }
  return nullptr;
}

}  // namespace graphmend::sema
