// ast::walk: a pre-order walk over a subtree that the visitor can prune.
#pragma once

#include "ast/ast.h"

namespace graphmend::ast {

// Calls visit(const Node*) on `node`, then, when it returns true, walks each child in field
// order; a false return skips that node's subtree. A null `node` is skipped.
template <class Visit>
void walk(const Node* node, Visit&& visit) {
  if (node == nullptr) return;
  if (!visit(node)) return;
  for_each_child(node, [&](const Node* child) { walk(child, visit); });
}

// Whether a node of the subtree of `node` (`node` included) satisfies `pred(const Node*)`;
// the walk stops at the first.
template <class Pred>
bool contains(const Node* node, Pred&& pred) {
  bool found = false;
  walk(node, [&](const Node* n) {
    found = found || pred(n);  // once found, the rest of the walk is pruned node by node
    return !found;
  });
  return found;
}

// Whether `node` binds the name `id` anywhere in its subtree (a Name in Store context).
inline bool stores_name(const Node* node, std::string_view id) {
  return contains(node, [&](const Node* n) {
    const auto* name = as<Name>(n);
    return name && name->ctx == ExprContext::Store && name->id == id;
  });
}

}  // namespace graphmend::ast
