// [Where] locating the statement: its place in the module (ast::find_path), whether it
// may be predicated at all (not a loop, not the fallback of an earlier rewrite), whether an
// enclosing predicated if covers it, and its condition split into a static prefix and the
// tensor operands.
#include <algorithm>

#include "ast/walk.h"
#include "rewrite/where/planner.h"

namespace graphmend::rewrite::where_detail {

using ast::Kind;

// A test the rewrite emitted: `runtime.where_ok(...)` or its run-time check `runtime.tensors(...)`.
bool is_where_ok_test(const Context& context, const ast::expr* test) {
  bool found = false;
  auto visit = [&](const ast::Node* n) {
    if (auto* call = ast::as<ast::Call>(n))
      if (auto* attr = ast::as<ast::Attribute>(call->func))
        if (auto* base = ast::as<ast::Name>(attr->value))
          if (base->id == context.runtime &&
              (attr->attr == "where_ok" || attr->attr == "tensors" || attr->attr == "cond_safe" ||
               attr->attr == "cond_on" || attr->attr == "masked_fill_ok" ||
               attr->attr == "masked_index_ok" || attr->attr == "index_where_ok" ||
               attr->attr == "masked_assign_ok" || attr->attr == "update_where_ok" ||
               attr->attr == "selecting"))
            found = true;
    return !found;
  };
  ast::walk(test, visit);
  return found;
}

// Why `statement` is not an if this rewrite may predicate, or empty; `path` is its place.
Problem check_statement(const Context& context, const ast::stmt& statement,
                        std::vector<BlockRef>& path) {
  if (ast::is<ast::While>(&statement))
    return {Reason::WhileLoop, "while loop on a tensor condition (loops are not predicated)"};
  const ast::If* node = ast::as<ast::If>(&statement);
  if (node == nullptr) return {Reason::NotAnIf, "only if statements are predicated"};
  if (!find_path(context.module.body, nullptr, &statement, path))
    return {Reason::Other, "statement not found in the module"};
  for (const BlockRef& ref : path)
    if (auto* owner = ast::as<ast::If>(ref.owner); owner && is_where_ok_test(context, owner->test))
      return {Reason::PredicatedFallback, "fallback branch of an already predicated if"};
  if (is_where_ok_test(context, node->test))
    return {Reason::Other, "already predicated (runtime where_ok test)"};
  return {};
}

namespace {

// The enclosing data-dependent if whose branch ends with `path`'s statement and that is
// predicated with torch.where (and so predicates this one too), or null.
const ast::If* covering_break_site(const Context& context, const std::vector<BlockRef>& path) {
  std::vector<const ast::If*> enclosing;
  for (size_t k = path.size(); k-- > 1;) {
    const BlockRef& ref = path[k];
    auto* owner = ast::as<ast::If>(ref.owner);
    if (owner == nullptr || ref.index + 1 != ref.block->size ||
        !context.analysis.is_data_dependent(*owner->test))
      break;
    enclosing.push_back(owner);
  }
  for (size_t k = enclosing.size(); k-- > 0;) {
    PlanResult outer = plan_statement(context, *enclosing[k], false);
    if (outer.plan && !outer.plan->cond.use) return enclosing[k];
  }
  return nullptr;
}

}  // namespace

// covering_break_site as the text shows it: only a break site covers, and an enclosing
// test that is data-dependent only under the active speculation (`if self.training:` with
// `self.training` assumed a tensor) is no break site, so nothing rewrites it.
const ast::If* covering_if(const Context& context, const std::vector<BlockRef>& path) {
  sema::Speculation* active = context.analysis.speculate(nullptr);
  const ast::If* cover = covering_break_site(context, path);
  context.analysis.speculate(active);
  return cover;
}

const ast::If* enclosing_predicated_if(const Context& context, const ast::stmt& statement) {
  std::vector<BlockRef> path;
  if (!find_path(context.module.body, nullptr, &statement, path)) return nullptr;
  return covering_if(context, path);
}

// `else_ifs`: an else branch may hold another if (tail duplication lowers a static one).
Problem split_condition(const Context& context, const ast::If& node, Condition& condition,
                        bool else_ifs) {
  condition.operands = {node.test};
  auto* op = ast::as<ast::BoolOp>(node.test);
  if (op == nullptr) return {};
  bool disjunction = op->op == ast::BoolOpKind::Or;
  std::vector<const ast::expr*> operands(op->values.begin(), op->values.end());
  auto first_dependent = [&] {
    size_t k = 0;
    while (k < operands.size() && !context.analysis.is_data_dependent(*operands[k])) ++k;
    return k;
  };
  // the prefix as the text shows it: a flag (`do_normalize and image.min() < 0`) stays a
  // Python test rather than a value assumed to be a tensor
  sema::Speculation* active = context.analysis.speculate(nullptr);
  size_t k = first_dependent();
  bool flag_last = operands.size() == 2 && !context.analysis.is_data_dependent(*operands[1]);
  context.analysis.speculate(active);
  if (k == operands.size()) k = first_dependent();  // only a speculation shows the data
  if (k == operands.size()) return {Reason::NotDataDependent, "condition is not data-dependent"};
  // `t < 1 or flag`: the flag tested first where it is pure (it cannot raise where Python
  // would not evaluate it; check_static_prefix), which leaves the truth of the `or` as it is
  if (disjunction && k == 0 && flag_last) {
    std::swap(operands[0], operands[1]);
    k = 1;
  }
  if (k == 0) return {};  // no static prefix: the condition as a whole
  // `flag or t < 1`: where the flags are all false the condition is the one tensor operand
  // after them; where one holds, the original `if` runs (Dynamo resolves the flags)
  if (disjunction && k + 1 != operands.size()) return {};
  for (size_t i = 0; i < k; ++i) {
    if (!condition.prefix.empty()) condition.prefix += disjunction ? " or " : " and ";
    std::string text(node_text(context, *operands[i]));
    condition.prefix += k > 1 || text.find('\n') != std::string::npos ? "(" + text + ")" : text;
  }
  if (disjunction) condition.prefix = "not (" + condition.prefix + ")";
  condition.disjunction = disjunction;
  condition.static_operands.assign(operands.begin(),
                                   operands.begin() + static_cast<std::ptrdiff_t>(k));
  condition.operands.assign(operands.begin() + static_cast<std::ptrdiff_t>(k), operands.end());
  if (!else_ifs && contains_kind(&node, {Kind::If}) && !node.orelse.empty()) {
    for (auto* s : node.orelse)
      if (contains_kind(s, {Kind::If}))
        return {Reason::Other, "static condition prefix with an else branch holding another if"};
  }
  return {};
}

Problem check_unpredicated(const Context& context, const ast::stmt& statement) {
  std::vector<BlockRef> path;
  return check_statement(context, statement, path);
}

}  // namespace graphmend::rewrite::where_detail
