// [Where] predicated control flow: a data-dependent `if` whose branches only compute pure
// values becomes `torch.where` over both values (checked at run time by
// `__graphmend_rt__.where_ok`, with the original branch kept as the fallback), or, when a
// branch calls a submodule or a local function, `torch.cond` over two nested functions.
//
// What is decided statically here (a decline when it fails): the statement shape (only
// assignments to names, `pass`, a final `return` or `raise`, a final nested data-dependent
// `if`), purity of every branch value and of the condition, no mutation of state, the merge
// set (assigned in some branch and live after; a variable missing from a branch that does
// not raise must be bound before the `if`), and that the condition is a tensor expression.
// What is decided at run time by where_ok (no break under Dynamo: all static facts): that
// the values are tensors of one shape, dtype and device, that the condition is a single
// boolean element, and that autograd cannot see the unselected branch. When it says no,
// the original branch runs on the already computed values.
#include "rewrite/where/where.h"

#include <optional>

#include "rewrite/defer/defer.h"
#include "rewrite/rewrite.h"
#include "rewrite/where/emit.h"
#include "rewrite/where/masked.h"
#include "rewrite/where/plan.h"

namespace graphmend::rewrite {

using reasons::Reason;
using where_detail::covered;
using where_detail::emit_plan;
using where_detail::Plan;

std::optional<Outcome> rewrite_where(const sema::BreakTag& tag, Context& context) {
  if (tag.kind != sema::BreakKind::DataDependentBranch || tag.statement == nullptr)
    return std::nullopt;
  const auto* conditional = ast::as<ast::IfExp>(tag.site);
  if (const auto* branch = ast::as<ast::If>(tag.statement); branch && conditional == nullptr) {
    if (auto masked = where_detail::rewrite_masked_update(context, *branch)) return masked;
    if (auto updated = where_detail::rewrite_inplace_update(context, *branch)) return updated;
  }
  where_detail::PlanResult result =
      conditional != nullptr ? where_detail::plan_conditional(context, *tag.statement, *conditional)
                             : where_detail::plan_statement(context, *tag.statement);
  if (!result.plan && conditional != nullptr && result.reason.reason == Reason::NotAnIf) {
    if (auto selected =
            where_detail::rewrite_inline_conditional(context, *tag.statement, *conditional))
      return selected;
  }
  if (!result.plan) {
    // a branch that only prints, logs or warns is deferred whole ([Defer], branch.cpp)
    if (conditional == nullptr) {
      if (std::optional<Outcome> deferred = defer_branch(tag, context)) {
        // both ways declined: say why each
        if (!deferred->fixed) {
          reasons::Problem both = reasons::quoting(
              result.reason.reason,
              result.reason.detail + "; deferred whole: ", {deferred->reason_id, deferred->reason});
          deferred->reason = std::move(both.detail);
          deferred->reason_id = both.reason;
        }
        return deferred;
      }
    }
    return Outcome::declined(result.reason);
  }
  const Plan& plan = *result.plan;
  if (plan.covered_by != nullptr) return covered(context, *plan.covered_by);
  // a branch that only records calls is [Defer]'s where it builds its messages from static
  // values; [Where]'s form computes tensor arguments too
  if (conditional == nullptr && plan.merge.empty() && !plan.returns) {
    if (std::optional<Outcome> deferred = defer_branch(tag, context); deferred && deferred->fixed)
      return deferred;
  }
  return emit_plan(plan, context);
}

std::optional<Outcome> predicate_guard(const sema::BreakTag& tag, Context& context) {
  const auto* guard = ast::as<ast::If>(tag.statement);
  if (guard == nullptr || !context.options.rewrites.has(RewriteKind::Where)) return std::nullopt;
  Outcome outcome;
  if (const ast::If* cover = where_detail::enclosing_predicated_if(context, *guard)) {
    outcome = covered(context, *cover);
  } else if (guard->orelse.empty() || written_as_elif(context, *guard)) {
    return std::nullopt;
  } else {
    where_detail::PlanResult result = where_detail::plan_statement(context, *guard);
    if (!result.plan) {
      outcome = Outcome::declined(reasons::quoting(
          Reason::HasElse,
          "the if statement has an else branch, which [Where] declines: ", result.reason));
    } else {
      const Plan& plan = *result.plan;
      outcome = plan.covered_by ? covered(context, *plan.covered_by) : emit_plan(plan, context);
    }
  }
  if (outcome.form == nullptr) outcome.form = "where";
  return outcome;
}

}  // namespace graphmend::rewrite
