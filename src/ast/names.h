// Names in a subtree: the ones read or bound, and the name an access chain starts from.
#pragma once

#include <string_view>
#include <vector>

#include "ast/walk.h"

namespace graphmend::ast {

// The names in `node` used as `context` (read, bound), in source order.
inline std::vector<const Name*> names_used(const Node* node, ExprContext context) {
  std::vector<const Name*> out;
  walk(node, [&](const Node* n) {
    if (const auto* name = as<Name>(n); name && name->ctx == context) out.push_back(name);
    return true;
  });
  return out;
}

// Names read (Load) in `node`, in source order.
inline std::vector<const Name*> loads(const Node* node) {
  return names_used(node, ExprContext::Load);
}

// Names bound (Store) in `node`, in source order.
inline std::vector<const Name*> stores(const Node* node) {
  return names_used(node, ExprContext::Store);
}

// The name an attribute chain starts from (`self` in `self.lin.weight`), or empty.
inline std::string_view attribute_root(const expr& e) {
  const expr* root = &e;
  while (const auto* attribute = as<Attribute>(root)) root = attribute->value;
  const auto* name = as<Name>(root);
  return name != nullptr ? name->id : std::string_view();
}

// The name a target or receiver is rooted at through subscripts, attributes and calls (`y`
// of `y[..., -1]`, `self` of `self.buf.data`), or empty.
inline std::string_view access_root(const expr* e) {
  while (true) {
    if (const auto* name = as<Name>(e)) return name->id;
    if (const auto* sub = as<Subscript>(e)) {
      e = sub->value;
    } else if (const auto* attr = as<Attribute>(e)) {
      e = attr->value;
    } else if (const auto* call = as<Call>(e)) {
      e = call->func;
    } else {
      return {};
    }
  }
}

}  // namespace graphmend::ast
