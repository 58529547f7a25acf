// A statement's place: see path.h.
#include "ast/path.h"

namespace graphmend::ast {

namespace {

std::vector<const Seq<stmt*>*> child_blocks(const stmt& s) {
  std::vector<const Seq<stmt*>*> out;
  for_each_body(&s, [&](const Seq<stmt*>& block) { out.push_back(&block); });
  return out;
}

}  // namespace

bool find_path(const Seq<stmt*>& block, const stmt* owner, const stmt* target,
               std::vector<BlockRef>& path) {
  for (uint32_t i = 0; i < block.size; ++i) {
    const stmt* s = block[i];
    if (s == nullptr || target->begin < s->begin || target->end > s->end) continue;
    path.push_back({&block, i, owner});
    if (s == target) return true;
    for (const auto* child : child_blocks(*s))
      if (find_path(*child, s, target, path)) return true;
    path.pop_back();
  }
  return false;
}

const arguments* function_arguments(const std::vector<BlockRef>& path, size_t& level) {
  for (size_t k = path.size(); k-- > 0;) {
    const stmt* owner = path[k].owner;
    if (const auto* f = as<FunctionDef>(owner)) {
      level = k;
      return f->args;
    }
    if (const auto* f = as<AsyncFunctionDef>(owner)) {
      level = k;
      return f->args;
    }
  }
  return nullptr;
}

}  // namespace graphmend::ast
