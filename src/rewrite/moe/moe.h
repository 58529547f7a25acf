// [Moe]: the routed mixture-of-experts loop given static shapes. The loop of the Mixtral
// family gathers each expert's tokens with `torch.where(mask[e])` (a data-dependent size),
// runs the expert on them and adds the rows back with `index_add_`; a loop over the experts
// hit (`.tolist()` of a `nonzero`) breaks once more. Where every use of the routed indices
// and of the rows gathered with them is row-wise, the loop calls the runtime's
// `routed_where`, `routed_index_add_` and `experts_hit` instead (runtime/moe.py), which
// pad the indices to a static size while compiling over experts known row-wise, and are
// the original calls otherwise. The [MaskedReduce] rewrite, which owns data-dependent
// output shapes, asks this form first and reports it as "moe".
#pragma once

#include <optional>

#include "rewrite/rewrite.h"

namespace graphmend::rewrite {

// The fix of the routed loop holding the tag's site (its `torch.where(mask)`, or the
// `nonzero` of the experts hit it iterates), or a decline saying which use keeps the
// indices' data-dependent size; std::nullopt when the site is in no such loop.
std::optional<Outcome> rewrite_routed_loop(const sema::BreakTag& tag, Context& context);

}  // namespace graphmend::rewrite
