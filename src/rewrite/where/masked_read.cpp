// [Where] masked reads: a branch value's subscript by a computed index, read ahead of its
// branch as runtime.index_where (the index masked by the conditions on its path), the
// rewrite running only where runtime.index_where_ok holds.
#include <algorithm>
#include <string>
#include <vector>

#include "ast/names.h"
#include "ast/walk.h"
#include "rewrite/where/planner.h"

namespace graphmend::rewrite::where_detail {

// A subscript of `node` whose index is computed (not a constant, not a slice): it raises
// IndexError out of range, and Dynamo reads a 0-d tensor index with .item() (a break, and
// inside torch.cond a failed compile). Null when there is none.
const ast::Subscript* computed_index(const ast::Node* node) {
  const ast::Subscript* found = nullptr;
  auto visit = [&](const ast::Node* n) {
    if (auto* sub = ast::as<ast::Subscript>(n); sub && sub->ctx == ast::ExprContext::Load &&
                                                !ast::is<ast::Slice>(sub->slice) &&
                                                !ast::is<ast::Constant>(sub->slice))
      found = sub;
    return found == nullptr;
  };
  ast::walk(node, visit);
  return found;
}

// Why a branch value reading `index` cannot be evaluated ahead of its branch as written.
Problem computed_index_reason(const Context& context, const ast::Subscript& index) {
  return {
      Reason::IndexesByValue,
      "branch value `" + short_text(node_text(context, index)) +
          "` indexes by a computed index: torch.where evaluates it where the original does not, "
          "which may raise IndexError, and torch.cond cannot trace a tensor index (Dynamo reads "
          "it with .item())"};
}

// The subscripts of `value` by a computed index that may be read ahead of the branch with
// the index masked (runtime.index_where), added to `facts`: impure as written, one index
// (not a slice, a number, a tuple or a mask), buffer and index pure and read before the branch
// (the run-time check before the statement evaluates them). False with `error` when one
// reads a value the branch computes.
bool Planner::find_masked(const ast::expr& value, const Tree& tree, sema::PurityFacts& facts) {
  bool ok = true;
  auto visit = [&](const ast::Node* n) {
    const auto* sub = ast::as<ast::Subscript>(n);
    if (!ok || sub == nullptr || sub->ctx != ast::ExprContext::Load) return ok;
    if (ast::is<ast::Slice>(sub->slice) || ast::is<ast::Constant>(sub->slice) ||
        number_literal(sub->slice) != nullptr || ast::is<ast::Tuple>(sub->slice) ||
        analysis_.is_bool_tensor(*sub->slice) || analysis_.is_pure(*sub, facts) ||
        !analysis_.is_pure(*sub->value, facts) || !analysis_.is_pure(*sub->slice, facts))
      return true;
    for (const ast::Name* name : ast::loads(sub)) {
      if (tree.env.count(name->id) != 0) {
        ok = fail(Reason::IndexesByBranchValue,
                  "branch value `" + short_text(node_text(context_, *sub)) +
                      "` indexes by a value the branch computes (`" + std::string(name->id) +
                      "`): the run-time check before the statement cannot read it");
        return false;
      }
    }
    facts.masked_subscripts.push_back(sub);
    return false;
  };
  ast::walk(&value, visit);
  return ok;
}

// `runtime.index_where(B, I, (<conditions holding>,), (<failing>,))`: `B[I]` on `tree`'s
// path, read ahead of it; its arguments are kept for the run-time check.
std::string Planner::masked_read(const ast::Subscript& sub, const Tree& tree) {
  std::vector<std::string> holding, failing;
  for (const auto& [split, side] : tree.path)
    (side ? holding : failing).push_back(kCondOpen + std::to_string(split) + kCondClose);
  auto tuple = [](const std::vector<std::string>& items) {
    std::string out = "(";
    for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out + (items.size() == 1 ? ",)" : ")");
  };
  std::string args = parenthesize_multiline(std::string(node_text(context_, *sub.value))) + ", " +
                     parenthesize_multiline(std::string(node_text(context_, *sub.slice))) + ", " +
                     tuple(holding);
  if (!failing.empty()) args += ", " + tuple(failing);
  if (std::find(masked_reads.begin(), masked_reads.end(), args) == masked_reads.end())
    masked_reads.push_back(args);
  return context_.runtime + ".index_where(" + args + ")";
}

// Branch values reading by a computed index ahead of their branch (Planner::masked_reads):
// the torch.where form only, under a check that evaluates the static prefix once more.
Problem check_masked_reads(const Context& context, const Planner& planner, const Plan& plan) {
  if (planner.masked_reads.empty()) return {};
  if (planner.expensive) return computed_index_reason(context, *planner.first_masked);
  // runtime.index_where_ok reads the conditions as written, before the rewrite evaluates them
  if (plan.root->evaluated_once)
    return {Reason::Other,
            "a branch reads by a computed index, whose check would evaluate the impure "
            "condition a second time"};
  return check_static_prefix(context, plan);
}

}  // namespace graphmend::rewrite::where_detail
