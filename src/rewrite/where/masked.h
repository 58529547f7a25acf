// [Where], in-place masked updates: `if M.any(): T.masked_fill_(M, v)` / `T[M] = v`.
#pragma once

#include <optional>

#include "rewrite/rewrite.h"

namespace graphmend::rewrite::where_detail {

// The fix or decline of an `if M.any():` (or `if torch.any(M):`) whose body updates tensors
// in place under a mask; std::nullopt when `statement` is not of that form.
std::optional<Outcome> rewrite_masked_update(const Context& context, const ast::If& statement);

}  // namespace graphmend::rewrite::where_detail
