// [Where], in-place updates under a tensor condition: masked ones under `any()` of their
// mask (`if M.any(): T.masked_fill_(M, v)` / `T[M] = v`, masked.cpp), and element-wise ones of
// tensors the function created (`if C: T.mul_(2)`, inplace.cpp).
#pragma once

#include <optional>

#include "rewrite/rewrite.h"

namespace graphmend::rewrite::where_detail {

// The fix or decline of an `if M.any():` (or `if torch.any(M):`) whose body updates tensors
// in place under a mask; std::nullopt when `statement` is not of that form.
std::optional<Outcome> rewrite_masked_update(const Context& context, const ast::If& statement);

// The fix or decline of an `if C:` (no else) whose body only updates tensors in place with
// element-wise methods (torch_facts' InPlaceUpdate); std::nullopt when it is not of that form.
std::optional<Outcome> rewrite_inplace_update(Context& context, const ast::If& statement);

}  // namespace graphmend::rewrite::where_detail
