// [Defer] of a whole branch: its condition (branch_condition.h).
#include "rewrite/defer/branch_condition.h"

namespace graphmend::rewrite::defer_detail {
namespace {

// `<static> and <tensor conditions>`: the static part stays a Python test before the branch's
// (Lightning's `param.grad is not None and torch.isnan(param.grad.float()).any()`).
std::optional<Condition> static_prefix_condition(Context& context, const ast::expr& test,
                                                 const std::string& name) {
  std::optional<StaticSplit> split = split_static_prefix(context, test);
  if (!split) return std::nullopt;
  Condition out;
  out.prefix = split->prefix;
  out.value = "(" + split->tensor_part + ")";
  out.fallback = name;
  return out;
}

}  // namespace

// A guard's condition: the tensor condition [Trap] asserts on, evaluated as such eagerly too
// (the `if` tests it, as runtime.guard would).
Condition guard_condition(Context& context, const ast::expr& test, const std::string& name) {
  if (std::optional<Condition> split = static_prefix_condition(context, test, name)) return *split;
  Condition out;
  std::optional<std::string> lowered = tensor_condition(context, test);
  if (!lowered) {
    out.problem = {
        reasons::Reason::NotTensor,
        "the condition `" + std::string(node_text(context, test)) + "` is not a tensor expression"};
    return out;
  }
  out.value = "(" + *lowered + ")";
  out.fallback = name;
  return out;
}

namespace {

// A data-dependent test lowered: `v in t`, a plain test, a static prefix, or and/or/not over
// pure tensor conditions.
Condition lower_condition(Context& context, const ast::expr& test, const std::string& name) {
  Condition out;
  std::string original(node_text(context, test));
  const auto* compare = ast::as<ast::Compare>(&test);
  if (compare && compare->ops.size == 1 &&
      (compare->ops[0] == ast::CmpOpKind::In || compare->ops[0] == ast::CmpOpKind::NotIn)) {
    // `v in t` is `bool((v == t).any().item())` (Tensor.__contains__): runtime.contains
    // keeps the tensor, evaluating both operands once, in order
    const char* helper = compare->ops[0] == ast::CmpOpKind::In ? ".contains(" : ".not_contains(";
    out.value = context.runtime + helper + std::string(node_text(context, *compare->left)) + ", " +
                std::string(node_text(context, *compare->comparators[0])) + ")";
    out.fallback = name;
    return out;
  }
  if (!ast::is<ast::BoolOp>(&test) && !ast::is<ast::UnaryOp>(&test)) {
    out.value = "(" + original + ")";
    out.fallback = name;
    return out;
  }
  if (std::optional<Condition> split = static_prefix_condition(context, test, name)) return *split;
  // and/or/not: torch.logical_* while compiling (every operand pure: the fallback evaluates
  // the test as written again), nothing eagerly
  std::optional<std::string> lowered = tensor_condition(context, test);
  bool pure = true;
  auto check = [&](const ast::expr& operand, auto& self) -> void {
    if (const auto* boolean = ast::as<ast::BoolOp>(&operand)) {
      for (const ast::expr* value : boolean->values) self(*value, self);
    } else if (const auto* unary = ast::as<ast::UnaryOp>(&operand);
               unary && unary->op == ast::UnaryOpKind::Not) {
      self(*unary->operand, self);
    } else {
      pure = pure && context.analysis.is_pure(operand);
    }
  };
  check(test, check);
  if (!lowered || !pure) {
    out.problem = {
        reasons::Reason::NotPure,
        "the condition `" + original + "` is not a combination of pure tensor conditions"};
    return out;
  }
  out.value = "(" + *lowered + " if " + context.runtime + ".is_compiling() else None)";
  out.fallback = "(" + original + ")";
  return out;
}

}  // namespace

// lower_condition, with the operands the text does not show to be tensors assumed to be,
// checked at run time (`runtime.tensors`, true only while compiling): the condition's value
// is the lowered one only when they are; otherwise None, and the `if` tests the original.
Condition lower_condition_speculating(Context& context, const ast::If& branch,
                                      const std::string& name) {
  Condition shown = lower_condition(context, *branch.test, name);
  if (!shown.problem) return shown;
  sema::Speculation speculation;
  speculation.site = &branch;
  sema::Speculation* before = context.analysis.speculate(&speculation);
  Condition assumed = lower_condition(context, *branch.test, name);
  context.analysis.speculate(before);
  if (assumed.problem || speculation.assumed.empty() || !speculation.floating.empty()) return shown;
  std::string compiling = context.runtime + ".is_compiling()";
  size_t at = assumed.value.rfind(compiling);
  if (at == std::string::npos) return shown;
  assumed.value.replace(at, compiling.size(), tensors_check(context, speculation));
  return assumed;
}

}  // namespace graphmend::rewrite::defer_detail
