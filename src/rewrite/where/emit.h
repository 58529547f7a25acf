// [Where] emission: the fix of a plan (plan.h), the stage after planning.
#pragma once

#include <string>

#include "rewrite/rewrite.h"
#include "rewrite/where/plan.h"

namespace graphmend::rewrite::where_detail {

// The fix of a plan that no enclosing if covers: its text in place of the statement.
Outcome emit_plan(const Plan& plan, Context& context);

// The fix of a statement the enclosing predicated if `cover` rewrites as part of its tree.
Outcome covered(const Context& context, const ast::If& cover);

// One indentation step as `statement`'s body writes it beyond `base` (its own
// indentation), else 4 spaces.
std::string indent_unit(const Context& context, const ast::If& statement, const std::string& base);

}  // namespace graphmend::rewrite::where_detail
