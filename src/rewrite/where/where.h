// [Where] for [Trap]'s validation guards (GM105): an `if` whose body ends in `raise` is a
// branch with a raising arm when it has an else branch, or a part of an enclosing
// predicated `if`.
#pragma once

#include <optional>

#include "rewrite/rewrite.h"

namespace graphmend::rewrite {

// The guard `tag` names, as [Where] decides it (form "where"): fixed with no edit where an
// enclosing predicated if holds it in its tree; with an else branch, predicated as a branch
// whose raise becomes a guard on its condition, or declined saying why. Nullopt for a
// guard [Trap] handles itself (no else branch, an elif), and when the [where] rewrite is
// switched off.
std::optional<Outcome> predicate_guard(const sema::BreakTag& tag, Context& context);

}  // namespace graphmend::rewrite
