// [Trap]: a validation guard `if <tensor condition>: raise E("literal")` becomes
//
//   __graphmend_rt__.guard(<tensor condition>, E, "literal")
//
// The runtime raises E("literal") at once when not compiling (bool() of the condition,
// exactly the original); while compiling it emits torch._assert_async on the negated
// condition with a token naming E and "literal", which the compile boundary turns back into
// E("literal") (python/graphmend/runtime/trap.py: guard, translate). A tensor assert becomes
// `assert __graphmend_rt__.check_assert(<cond>, "literal"), "literal"` the same way (GM110; with
// another message, `assert __graphmend_rt__.rerun_unless(<cond>), <message>`), and
// `torch._check_tensor_all(cond)` goes to the runtime's check_tensor_all (GM109).
#include <string>
#include <vector>

#include "ast/walk.h"
#include "rewrite/defer/defer.h"
#include "rewrite/guard_raise.h"
#include "rewrite/rewrite.h"
#include "rewrite/where/where.h"

namespace graphmend::rewrite {
namespace {

// The guard's condition as a tensor expression, assuming (under `speculation`) the values
// whose type the text cannot show are tensors; `speculation.assumed` names them.
std::optional<std::string> speculated_condition(const Context& context, const ast::If& guard,
                                                sema::Speculation& speculation) {
  speculation.site = &guard;
  sema::Speculation* before = context.analysis.speculate(&speculation);
  std::optional<std::string> condition = tensor_condition(context, *guard.test);
  context.analysis.is_pure(*guard.test);  // records what its operands assume, lowered or not
  context.analysis.speculate(before);
  return condition;
}

// `torch._check_tensor_all(cond)` reads `cond` on the host (`.item()`); the runtime's
// `check_tensor_all` asserts in the graph instead while compiling.
Outcome rewrite_tensor_check(const sema::BreakTag& tag, Context& context) {
  const auto* call = ast::as<ast::Call>(tag.site);
  if (call == nullptr) return Outcome::declined(reasons::Reason::Other, "the check is not a call");
  if (call->args.size != 1 || !call->keywords.empty()) {
    return Outcome::declined(
        reasons::Reason::MessageNotLiteral,
        "the check has a message: a message callable runs only on failure, which an in-graph "
        "assert cannot do");
  }
  if (ast::is<ast::Starred>(call->args[0]))
    return Outcome::declined(reasons::Reason::Other, "the condition is a starred argument");
  Outcome outcome;
  outcome.needs_runtime = true;
  outcome.edits.push_back(
      {call->func->begin, call->func->end, context.runtime + ".check_tensor_all"});
  outcome.fixed = true;
  return outcome;
}

Outcome rerun_assert(const Context& context, const ast::Assert& assertion,
                     const std::optional<std::string>& lowered, Outcome outcome);

// `assert <tensor cond>, "msg"` becomes `assert <runtime>.check_assert(<cond>, "msg"), "msg"`:
// compiled, the failure surfaces as AssertionError("msg") rather than Dynamo's
// RuntimeError; the statement stays an assert, so `python -O` still removes it whole.
Outcome rewrite_assert(const sema::BreakTag& tag, Context& context) {
  const auto* assertion = ast::as<ast::Assert>(tag.statement);
  if (assertion == nullptr)
    return Outcome::declined(reasons::Reason::Other, "the check is not an assert statement");
  // A message that is not a literal (a tensor, an f-string of tensor values) is evaluated
  // only where the assert fails: runtime.rerun_unless asserts in the graph and runs the call
  // again eagerly on failure, where the original raises with its message.
  bool rerun = assertion->msg != nullptr && !is_string_literal(assertion->msg);
  // Two insertions keep the text between the condition and the message (a comma, a
  // parenthesised message over several lines) as written.
  Outcome outcome;
  outcome.needs_runtime = true;
  const ast::expr& test = *assertion->test;
  // `assert lengths.max().item() <= slen` (transformers' XLM): compared in the graph.
  // item_compare checks at run time that `lengths.max()` is a tensor (the original
  // comparison otherwise), so a speculation may assume it; nothing else is evaluated.
  sema::Speculation speculation;
  speculation.site = assertion;
  sema::Speculation* before = context.analysis.speculate(&speculation);
  std::optional<std::string> lowered;
  // `assert a.sum() == 0 and b.sum() == 0` (I-BERT), `assert not x.isnan().any()`: Python's
  // `and`/`or`/`not` call bool() on each operand, a break the in-graph assert cannot hold,
  // so they are written torch.logical_and/or/not
  // (the later operands evaluated anyway: they must be pure, as tensor_condition checks).
  // Operands assumed tensors are checked at run time; otherwise the original `and` runs.
  const auto* negation = ast::as<ast::UnaryOp>(&test);
  bool boolean =
      ast::is<ast::BoolOp>(&test) || (negation != nullptr && negation->op == ast::UnaryOpKind::Not);
  if (boolean || is_item_comparison(context, test)) lowered = tensor_condition(context, test);
  context.analysis.speculate(before);
  if (boolean && !lowered) {
    return Outcome::declined(reasons::Reason::AssertOperandNotTensor,
                             "an operand of the assert's `and`/`or`/`not` is not a pure tensor "
                             "condition: Python would call bool() on it, a break");
  }
  if (boolean && !speculation.assumed.empty()) {
    lowered = "(" + *lowered + " if " + tensors_check(context, speculation) + " else (" +
              std::string(node_text(context, test)) + "))";
  }
  // `assert (a == b).all().item()`: the truth of the scalar is the truth of the held tensor
  // (nonzero; NaN is true), so the read stays in the graph with the assert.
  if (sema::ScalarRead read = context.analysis.scalar_read(test); read.tensor != nullptr)
    lowered = held_read(context, read);
  if (rerun) return rerun_assert(context, *assertion, lowered, std::move(outcome));
  if (lowered) {
    outcome.edits.push_back({test.begin, test.end, context.runtime + ".check_assert(" + *lowered});
  } else {
    outcome.edits.push_back({test.begin, test.begin, context.runtime + ".check_assert("});
  }
  // The literal again as the statement's message: where the assert cannot be in the graph,
  // check_assert returns the condition and the statement tests it as the original does.
  std::string again;
  if (assertion->msg != nullptr) {
    std::string text(node_text(context, *assertion->msg));
    // a literal over several lines was inside the call's parentheses: it needs its own
    again = text.find('\n') == std::string::npos ? ", " + text : ", (" + text + ")";
  }
  outcome.edits.push_back({assertion->end, assertion->end, ")" + again});
  outcome.fixed = true;
  return outcome;
}

// `assert <cond>, <message>` with a message that is not a literal: `assert
// <runtime>.rerun_unless(<cond>), <message>`. The message is never traced (a failure runs
// the call again eagerly), so the breaks in it go with the assert's.
Outcome rerun_assert(const Context& context, const ast::Assert& assertion,
                     const std::optional<std::string>& lowered, Outcome outcome) {
  const ast::expr& test = *assertion.test;
  std::string condition = lowered ? *lowered : std::string(node_text(context, test));
  outcome.edits.push_back(
      {test.begin, test.end, context.runtime + ".rerun_unless(" + condition + ")"});
  ast::walk(assertion.msg, [&](const ast::Node* node) {
    outcome.absorbed.push_back(node);
    return true;
  });
  outcome.absorbed_as = Outcome::Absorbed::RunOnFailure;
  outcome.fixed = true;
  return outcome;
}

// `if <tensor condition>: <statements ending in a raise>` that the in-graph forms cannot
// lower (a message formatted from tensor data, statements before the raise): its test
// becomes `runtime.rerun_if(<condition>)`. While compiling, where the call has changed
// nothing yet, that is an in-graph assert, and a failure runs the whole call again eagerly
// (the original body with it); otherwise the `if` tests the condition as written.
Outcome rerun_guard(const sema::BreakTag& tag, Context& context, const ast::If& guard) {
  if (!tag.assumed && !context.analysis.is_data_dependent(*guard.test))
    return Outcome::declined(reasons::Reason::NotDataDependent,
                             "the condition is not data-dependent");
  std::string rerun = context.runtime + ".rerun_if(";
  Outcome outcome;
  outcome.needs_runtime = true;
  outcome.fixed = true;
  // The body is never traced (a failure runs it eagerly): the breaks in it are gone too.
  for (const ast::stmt* statement : guard.body)
    ast::walk(statement, [&](const ast::Node* node) {
      outcome.absorbed.push_back(node);
      return true;
    });
  if (std::optional<std::string> condition = tensor_condition(context, *guard.test)) {
    outcome.edits.push_back({guard.test->begin, guard.test->end, rerun + *condition + ")"});
    return outcome;
  }
  if (std::optional<StaticSplit> split = split_static_prefix(context, *guard.test)) {
    outcome.edits.push_back({guard.test->begin, guard.test->end,
                             split->prefix + " and " + rerun + split->tensor_part + ")"});
    return outcome;
  }
  sema::Speculation speculation;
  std::optional<std::string> speculated = speculated_condition(context, guard, speculation);
  if (!speculated || speculation.assumed.empty())
    return Outcome::declined(
        reasons::Reason::NotTensor,
        "the condition is not a tensor expression (an operand is not shown to be a tensor, or "
        "an and/or operand Python may skip is not pure)");
  outcome.edits.push_back({guard.test->begin, guard.test->end,
                           "(" + rerun + *speculated + ") if " +
                               tensors_check(context, speculation) + " else (" +
                               std::string(node_text(context, *guard.test)) + "))"});
  return outcome;
}

Outcome lower_guard(const sema::BreakTag& tag, Context& context, const ast::If& guard);

// A guard whose body logs (directly or through helpers that only defer) before its raise:
// [Defer]'s branch form with the raise in-graph (defer_guard), so the records made before
// the failure replay first and the exception follows.
Outcome deferred_guard(const sema::BreakTag& tag, Context& context, const ast::If& guard);

}  // namespace

std::optional<Outcome> rewrite_trap(const sema::BreakTag& tag, Context& context) {
  if (tag.kind == sema::BreakKind::TensorCheck) return rewrite_tensor_check(tag, context);
  if (tag.kind == sema::BreakKind::TensorAssert) return rewrite_assert(tag, context);
  if (tag.kind != sema::BreakKind::ValidationGuard) return std::nullopt;
  const auto* guard = ast::as<ast::If>(tag.statement);
  if (guard == nullptr)
    return Outcome::declined(reasons::Reason::NotSingleRaise, "the guard is not an if statement");
  // a raising arm of a predicated branch, or a guard with an else branch: [Where]
  if (std::optional<Outcome> predicated = predicate_guard(tag, context)) return predicated;
  if (written_as_elif(context, *guard)) {
    return Outcome::declined(reasons::Reason::HasElse,
                             "the guard is an elif branch of a larger if statement");
  }
  if (!guard->orelse.empty())
    return Outcome::declined(reasons::Reason::HasElse, "the if statement has an else branch");
  Outcome lowered = lower_guard(tag, context, *guard);
  if (lowered.fixed || !sema::ends_in_raise(guard->body, context.analysis.torch_name()))
    return lowered;
  // What a guard's fix absorbs runs only when the guard fails (its [Where] form aside).
  Outcome deferred = deferred_guard(tag, context, *guard);
  deferred.absorbed_as = Outcome::Absorbed::RunOnFailure;
  if (deferred.fixed) return deferred;
  Outcome rerun = rerun_guard(tag, context, *guard);
  rerun.absorbed_as = Outcome::Absorbed::RunOnFailure;
  return rerun.fixed ? rerun : lowered;
}

namespace {

// The in-graph forms of `if <tensor condition>: raise E(message)`: runtime.guard (a string
// message) and guard_formatted (one formatted from values other than tensors).
Outcome lower_guard(const sema::BreakTag& tag, Context& context, const ast::If& guard_node) {
  const ast::If* guard = &guard_node;
  if (guard->body.size != 1 || !ast::is<ast::Raise>(guard->body[0])) {
    return Outcome::declined(reasons::Reason::NotSingleRaise,
                             "the if body is not exactly one raise statement");
  }
  const auto* raise = ast::as<ast::Raise>(guard->body[0]);
  sema::Speculation speculation;
  std::optional<std::string> speculated = speculated_condition(context, *guard, speculation);
  // values the condition treats as tensors: a message formatting them reads tensor data
  std::vector<std::string_view> condition_tensors;
  for (const ast::expr* value : speculation.assumed)
    condition_tensors.push_back(node_text(context, *value));
  GuardRaise form = guard_raise(context, *guard, *raise, condition_tensors);
  if (!form.problem.empty()) return Outcome::declined(form.reason, form.problem);
  if (!tag.assumed && !context.analysis.is_data_dependent(*guard->test)) {
    return Outcome::declined(reasons::Reason::NotDataDependent,
                             "the condition is not data-dependent");
  }
  const std::string& function = form.function;
  const std::string& arguments = form.arguments;
  Outcome outcome;
  outcome.needs_runtime = true;
  if (std::optional<std::string> condition = tensor_condition(context, *guard->test)) {
    outcome.edits.push_back(
        {guard->begin, guard->end, context.runtime + function + *condition + arguments});
    outcome.fixed = true;
    return outcome;
  }
  // `if <static> and <tensor>: raise` keeps the static part as the Python `if`.
  std::optional<StaticSplit> split = split_static_prefix(context, *guard->test);
  if (!split && speculated && !speculation.assumed.empty()) {
    // checked: `if runtime.tensors(<assumed>): <guard> el<the original if>`
    std::string indent = indentation_of(context, *guard);
    outcome.edits.push_back({guard->begin, guard->end,
                             "if " + tensors_check(context, speculation) + ":\n" + indent + "    " +
                                 context.runtime + function + *speculated + arguments + "\n" +
                                 indent + "el" + std::string(node_text(context, *guard))});
    outcome.fixed = true;
    return outcome;
  }
  if (!split) {
    return Outcome::declined(
        reasons::Reason::NotTensor,
        "the condition is not a tensor expression (an operand is not shown to be a tensor, or "
        "an and/or operand Python may skip is not pure)");
  }
  outcome.edits.push_back({guard->test->begin, guard->test->end, split->prefix});
  outcome.edits.push_back(
      {raise->begin, raise->end, context.runtime + function + split->tensor_part + arguments});
  outcome.fixed = true;
  return outcome;
}

Outcome deferred_guard(const sema::BreakTag& tag, Context& context, const ast::If& guard) {
  if (guard.body.size < 2)
    return Outcome::declined(reasons::Reason::Other, "the guard holds only its raise");
  const auto* raise = ast::as<ast::Raise>(guard.body[guard.body.size - 1]);
  if (raise == nullptr)
    return Outcome::declined(reasons::Reason::Other, "the guard does not end in its raise");
  if (!tag.assumed && !context.analysis.is_data_dependent(*guard.test))
    return Outcome::declined(reasons::Reason::NotDataDependent,
                             "the condition is not data-dependent");
  GuardRaise form = guard_raise(context, guard, *raise, {});
  if (!form.problem.empty()) return Outcome::declined(form.reason, form.problem);
  return defer_guard(tag, context, form);
}

}  // namespace

}  // namespace graphmend::rewrite
