// Facts of a function definition read off its text: decorators, parameters, its own body.
#pragma once

#include <string_view>

#include "ast/walk.h"

namespace graphmend::ast {

// The decorators of a def or async def, or null for any other node.
inline const Seq<expr*>* decorators_of(const Node* fn) {
  if (const auto* f = as<FunctionDef>(fn)) return &f->decorator_list;
  if (const auto* f = as<AsyncFunctionDef>(fn)) return &f->decorator_list;
  return nullptr;
}

// Whether a def or async def is decorated `@staticmethod`.
inline bool is_staticmethod(const Node* fn) {
  const auto* decorators = decorators_of(fn);
  if (decorators == nullptr) return false;
  for (const expr* d : *decorators) {
    if (const auto* n = as<Name>(d); n && n->id == "staticmethod") return true;
  }
  return false;
}

// The parameter of `def` called `name` (positional or keyword, not *args/**kwargs), or null.
inline const arg* parameter_named(const FunctionDef& def, std::string_view name) {
  for (const auto* list : {&def.args->posonlyargs, &def.args->args, &def.args->kwonlyargs})
    for (const arg* param : *list)
      if (param->arg == name) return param;
  return nullptr;
}

// The innermost def or async def below `root` holding `node`, or `root` when none does.
// (Analysis::function_of answers from its scopes, which a class nested in a function
// interrupts; this walks the text.)
inline const Node* innermost_function(const Node& root, const Node& node) {
  const Node* scope = &root;
  walk(&root, [&](const Node* n) {
    bool holds = n->begin <= node.begin && node.end <= n->end;
    if (holds && (is<FunctionDef>(n) || is<AsyncFunctionDef>(n))) scope = n;
    return holds;
  });
  return scope;
}

// Calls visit(const Node*) on the nodes of `scope`'s own body, nested functions, classes and
// lambdas left out.
template <class Visit>
void walk_own_body(const Node* scope, const Visit& visit) {
  walk(scope, [&](const Node* n) {
    if (n != scope &&
        (is<FunctionDef>(n) || is<AsyncFunctionDef>(n) || is<ClassDef>(n) || is<Lambda>(n)))
      return false;
    visit(n);
    return true;
  });
}

}  // namespace graphmend::ast
