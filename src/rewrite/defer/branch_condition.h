// [Defer] of a whole branch (branch.cpp): the condition a deferred branch records its calls
// with, lowered to a tensor where it can be. Not for use outside src/rewrite/defer/.
#pragma once

#include <optional>
#include <string>

#include "rewrite/rewrite.h"

namespace graphmend::rewrite::defer_detail {

// The condition, as `__gm_c := <value>` (the value the body's calls are recorded with)
// followed by the fallback the `if` tests when the branch is not deferred, or a reason.
struct Condition {
  std::string prefix;    // static operands `and`-ed before it (`x.grad is not None and`)
  std::string value;     // evaluated once, where the original test was
  std::string fallback;  // `__gm_c` itself, or the original test
  std::optional<reasons::Problem> problem;
};

// A guard's condition: the tensor condition [Trap] asserts on, evaluated as such eagerly too
// (the `if` tests it, as runtime.guard would).
Condition guard_condition(Context& context, const ast::expr& test, const std::string& name);

// The branch's test lowered (lower_condition), with the operands the text does not show to be
// tensors assumed to be, checked at run time.
Condition lower_condition_speculating(Context& context, const ast::If& branch,
                                      const std::string& name);

}  // namespace graphmend::rewrite::defer_detail
