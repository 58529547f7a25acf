// [MaskedReduce]: a boolean-mask selection whose only use is a reduction, reduced densely:
//
//   X[M].sum()   ->  <runtime>.masked_reduce(X, M, "sum")
//
// (likewise prod, any, all, count_nonzero, max, min). X[M] has a data-dependent shape,
// which breaks the graph; the dense form (masked_fill of the unselected elements with the
// reduction's identity, then the reduction) has X's static shape. The helper
// (runtime/masked.py) reduces densely only while compiling, with M a bool tensor of X's
// shape and device and X of a dtype for which the dense result is exactly the selection's
// (integers and bools for sum/prod/max/min, whose arithmetic is exact in any order); an
// empty selection's max/min raises torch's error through an in-graph trap. Otherwise,
// and eagerly, it runs X[M].<op>() itself. X and M are evaluated once each, in the
// original's order. A mean is declined: it divides a floating sum, whose order of
// addition the dense form changes, and raises for integers.
//
// A `torch.where(mask)` or `nonzero` of a routed expert loop goes to the loop's own form
// first (moe/, reported as "moe"), and a selection in the value of a store through the same
// mask to the dense store (masked_assign/, reported as "masked_assign").
#include <string>

#include "ast/walk.h"
#include "rewrite/masked_assign/masked_assign.h"
#include "rewrite/moe/moe.h"
#include "rewrite/rewrite.h"

namespace graphmend::rewrite {
namespace {

bool is_exact_reduction(std::string_view method) {
  for (std::string_view op : {"sum", "prod", "any", "all", "count_nonzero", "max", "min"}) {
    if (method == op) return true;
  }
  return false;
}

// The call `<site>.<method>(...)` within `statement` whose receiver is `site`, else null.
const ast::Call* method_call_on(const ast::stmt& statement, const ast::expr* site) {
  const ast::Call* found = nullptr;
  ast::walk(&statement, [&](const ast::Node* node) {
    if (found != nullptr) return false;
    const auto* call = ast::as<ast::Call>(node);
    const auto* method = call ? ast::as<ast::Attribute>(call->func) : nullptr;
    if (method != nullptr && method->value == site) found = call;
    return found == nullptr;
  });
  return found;
}

Outcome selection_kept(const Context& context, const ast::Subscript& selection,
                       std::string_view use) {
  return Outcome::declined(reasons::Reason::MaskedSelectionKept,
                           "out of scope: the boolean-mask selection " +
                               std::string(node_text(context, selection)) +
                               " (a data-dependent output shape) is " + std::string(use) +
                               ", not only reduced with a method of no arguments");
}

}  // namespace

std::optional<Outcome> rewrite_masked_reduce(const sema::BreakTag& tag, Context& context) {
  if (tag.kind != sema::BreakKind::DynamicShape) return std::nullopt;
  if (std::optional<Outcome> routed = rewrite_routed_loop(tag, context)) return routed;
  if (std::optional<Outcome> stored = rewrite_masked_assign(tag, context)) return stored;
  const auto* selection = ast::as<ast::Subscript>(tag.site);
  if (selection == nullptr)
    return Outcome::declined(reasons::Reason::OutOfScope,
                             "out of scope: no rewrite handles a data-dependent output shape "
                             "other than a boolean-mask selection that is only reduced");
  if (ast::as<ast::Tuple>(selection->slice) != nullptr)
    return Outcome::declined(reasons::Reason::MaskedIndexForm,
                             "the boolean mask is one index of several (a data-dependent "
                             "output shape); only X[M] with the mask alone is reduced densely");
  const ast::Call* call = method_call_on(*tag.statement, selection);
  if (call == nullptr) return selection_kept(context, *selection, "kept as a value");
  const auto* method = ast::as<ast::Attribute>(call->func);
  if (method->attr == "mean")
    return Outcome::declined(reasons::Reason::MaskedReductionInexact,
                             "the mean of a boolean-mask selection (a data-dependent output "
                             "shape): a dense floating sum adds in another order, so its "
                             "rounding may differ");
  if (!is_exact_reduction(method->attr))
    return selection_kept(context, *selection, "used with ." + std::string(method->attr));
  if (call->args.size != 0 || !call->keywords.empty())
    return selection_kept(context, *selection,
                          "reduced with arguments (." + std::string(method->attr) + "(...))");
  Outcome outcome;
  outcome.fixed = true;
  outcome.needs_runtime = true;
  outcome.edits.push_back({call->begin, call->end,
                           context.runtime + ".masked_reduce(" +
                               std::string(node_text(context, *selection->value)) + ", " +
                               std::string(node_text(context, *selection->slice)) + ", \"" +
                               std::string(method->attr) + "\")"});
  return outcome;
}

}  // namespace graphmend::rewrite
