// Where a scalar [Scalar] captures may flow (see capture_uses.cpp).
#pragma once

#include <optional>

#include "diag/reasons.h"
#include "rewrite/rewrite.h"

namespace graphmend::rewrite {

// Why capturing the scalar `read` (an `.item()`, `int()` or `float()` call) would not
// remove its break, or nullopt when every use of its value is one Dynamo keeps in the graph.
std::optional<reasons::Problem> capture_problem(const Context& context, const ast::Call& read);

}  // namespace graphmend::rewrite
