// [Where] emission: the fix of a plan (plan.h), the stage after planning.
#pragma once

#include "rewrite/rewrite.h"
#include "rewrite/where/plan.h"

namespace graphmend::rewrite::where_detail {

// The fix of a plan that no enclosing if covers: its text in place of the statement.
Outcome emit_plan(const Plan& plan, Context& context);

// The fix of a statement the enclosing predicated if `cover` rewrites as part of its tree.
Outcome covered(const Context& context, const ast::If& cover);

}  // namespace graphmend::rewrite::where_detail
