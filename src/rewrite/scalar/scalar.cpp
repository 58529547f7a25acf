// [Scalar]: a Python scalar read from a tensor that the function only compares with ints
// (sema's HeldScalar):
//
//   n = mask.sum().item()           ->  n = <runtime>.item_later(mask.sum())
//   assert isinstance(n, int)       ->  assert <runtime>.item_isinstance(n, int)
//   if x.shape[0] != n:                 if x.shape[0] != n:
//       raise ValueError(f"{n}")            raise ValueError(f"{<runtime>.item_now(n)}")
//
// While compiling, item_later holds the tensor (int64, bool or float64) instead of reading
// it (the read is a graph break), and each comparison, as written, is a tensor that [Trap]
// or [Where] keeps in the graph; not compiling, everything is the original. The fix runs
// after the others (mend.cpp) and is kept only where their fixes rewrote every comparison:
// elsewhere the break would only move to the comparison.
#include <string>

#include "rewrite/rewrite.h"

namespace graphmend::rewrite {

std::optional<Outcome> rewrite_scalar(const sema::BreakTag& tag, Context& context) {
  if (tag.kind != sema::BreakKind::ScalarUse) return std::nullopt;
  const auto* assign = ast::as<ast::Assign>(tag.statement);
  if (assign == nullptr || assign->value != tag.site)
    return Outcome::declined(
        reasons::Reason::OutOfScope,
        "out of scope: no rewrite handles a tensor converted to a Python scalar other than "
        "one assigned to a name and compared with ints");
  sema::HeldScalar held = context.analysis.held_scalar(*tag.statement);
  if (held.problem) return Outcome::declined(held.problem->reason, held.problem->detail);
  Outcome outcome;
  outcome.fixed = true;
  outcome.needs_runtime = true;
  outcome.edits.push_back(
      {assign->value->begin, assign->value->end, held_read(context, {held.tensor, held.read})});
  for (const ast::Call* test : held.type_tests)
    outcome.edits.push_back(
        {test->func->begin, test->func->end, context.runtime + ".item_isinstance"});
  for (const ast::Name* use : held.guard_reads) {
    outcome.edits.push_back({use->begin, use->begin, context.runtime + ".item_now("});
    outcome.edits.push_back({use->end, use->end, ")"});
  }
  outcome.pays_off_in.assign(held.tests.begin(), held.tests.end());
  outcome.unpaid = {reasons::Reason::ScalarComparisonNotFixed,
                    "a comparison it feeds is not rewritten by another fix, so the break would "
                    "only move there"};
  return outcome;
}

}  // namespace graphmend::rewrite
