// [Defer]'s pieces that other fixes reuse: the deferred form of one call statement.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rewrite/guard_raise.h"
#include "rewrite/rewrite.h"

namespace graphmend::rewrite {

// The break kind of a call [Defer] defers when it is a statement of its own (print, a
// logger method, warnings.warn), or nullopt.
std::optional<sema::BreakKind> deferrable_kind(const Context& context, const ast::Call& call);

// The fix of the call statement `tag` names. With a `condition` (the name of a temporary
// holding a one-element tensor), the call is recorded only to be replayed if that condition
// holds at replay time (runtime.defer_when / defer_format_when).
Outcome defer_call(const sema::BreakTag& tag, const Context& context,
                   std::string_view condition = {});

// [Defer] of a whole data-dependent `if` whose body only builds values from static ones
// and calls deferrable functions (branch.cpp): nullopt when the body calls none.
std::optional<Outcome> defer_branch(const sema::BreakTag& tag, Context& context);

// A guard `if <tensor condition>: <deferrable calls, helpers that only defer>; raise ...`
// deferred as a branch (branch.cpp): the calls recorded with the condition and the raise
// becoming `raise_form` over it, so the failure surfaces after the records made before it.
Outcome defer_guard(const sema::BreakTag& tag, Context& context, const GuardRaise& raise_form);

}  // namespace graphmend::rewrite
