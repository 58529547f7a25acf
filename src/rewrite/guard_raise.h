// The in-graph form of a guard's `raise`, shared by [Trap] (a guard of its own), [Defer] (a
// guard that prints, logs or warns before its raise) and [Where] (a branch that raises).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rewrite/rewrite.h"

namespace graphmend::rewrite {

// The in-graph form of a guard's `raise` ([Trap]): `<runtime><function><condition><arguments>`
// raises what the raise raised where the condition holds; `message` is the raised message
// (null without one).
struct GuardRaise {
  std::string function;   // ".guard(" or ".guard_formatted("
  std::string arguments;  // ", E, <message>)"
  const ast::expr* message = nullptr;
  std::string problem;  // why the raise has no such form, in words; empty when it has one
  reasons::Reason reason = reasons::Reason::Other;  // the id of `problem`
  static GuardRaise declined(reasons::Reason reason, std::string detail) {
    GuardRaise form;
    form.problem = std::move(detail);
    form.reason = reason;
    return form;
  }
};

// The guard form of `raise` (guard_raise.cpp): `runtime.guard(<cond>, E, "literal")`, or
// `guard_formatted(<cond>, E, lambda: <message>)` for a message formatted from values other
// than tensors (`condition_tensors`: values the condition treats as tensors, as written);
// `site` is where the raise stands (the class it raises is looked up from there).
GuardRaise guard_raise(const Context& context, const ast::Node& site, const ast::Raise& raise,
                       const std::vector<std::string_view>& condition_tensors);

// Whether `e` is a string literal (an f-string without fields included).
bool is_string_literal(const ast::expr* e);

}  // namespace graphmend::rewrite
