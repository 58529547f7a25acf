// A statement's place: the chain of statement lists from the module down to it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ast/ast.h"

namespace graphmend::ast {

// One step of a path: a statement list and the index of the statement on the path in it.
struct BlockRef {
  const Seq<stmt*>* block = nullptr;
  uint32_t index = 0;
  const stmt* owner = nullptr;  // the statement owning `block` (null: the module)
};

// Appends to `path` the steps from `block` (owned by `owner`) down to `target`; false (and
// `path` as it was) when `target` is not below `block`.
bool find_path(const Seq<stmt*>& block, const stmt* owner, const stmt* target,
               std::vector<BlockRef>& path);

// The parameters of the innermost function on `path`, with `level` set to the index of the
// step into its body; null when the path is in no function.
const arguments* function_arguments(const std::vector<BlockRef>& path, size_t& level);

}  // namespace graphmend::ast
