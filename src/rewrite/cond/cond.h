// [Cond]: a data-dependent branch that calls code (a submodule, a local function) becomes
// `torch.cond` over two nested functions, through the runtime's `cond` (the plain `if`
// eagerly). The [Where] rewrite plans the branch and chooses this form (Plan::use_cond).
#pragma once

#include <string>

#include "rewrite/rewrite.h"
#include "rewrite/where/emitter.h"
#include "rewrite/where/plan.h"

namespace graphmend::rewrite {

// Emits the two branch functions `true_name` and `false_name` and the call that selects on
// `condition` (empty: the plan's condition as a tensor expression).
void emit_cond(const where_detail::Plan& plan, const Context& context, const std::string& true_name,
               const std::string& false_name, Emitter& out, const std::string& condition = {});

}  // namespace graphmend::rewrite
