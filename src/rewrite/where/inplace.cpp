// [Where], element-wise in-place updates under a tensor condition:
//
//     if C:                     if rt.update_where_ok(__gm_c0 := (C), (T, 2), (T, b)):
//         T.mul_(2)       ->        T.copy_(torch.where(__gm_c0, T.clone().mul_(2), T))
//         T.add_(b)                 T.copy_(torch.where(__gm_c0, T.clone().add_(b), T))
//                               elif C:
//                                   <the original body>
//
// Each update runs on a copy of T, so it has the original's shape, dtype and broadcasting
// exactly, and torch.where keeps T's values where C is False: one after the other the
// statements leave T as the original does on either side. Run whatever C says, an update
// must not raise where the original skips it: the check asks of each argument a Python
// number T's dtype takes, or a tensor of T's dtype and device broadcasting to T's shape. T is
// updated in place (names and views holding it see the change, as in the original), but whatever C
// says: as for masked.cpp's updates, T must be a tensor the traced code created itself
// (Analysis::why_not_fresh) and grad mode off (runtime.update_where_ok), so no version
// counter a saved backward checks and no input written back can tell. C is evaluated once,
// before the updates, as the original evaluates it; eagerly the original `if` runs.
#include <algorithm>
#include <string>
#include <vector>

#include "rewrite/where/emit.h"
#include "rewrite/where/masked.h"
#include "rewrite/where/plan.h"
#include "rewrite/where/planner.h"
#include "sema/torch_facts.h"

namespace graphmend::rewrite::where_detail {
namespace {

// `T.<update>(args)` as a statement: the call, else null.
const ast::Call* update_call(const ast::stmt& s) {
  const auto* e = ast::as<ast::Expr>(&s);
  const auto* call = e != nullptr ? ast::as<ast::Call>(e->value) : nullptr;
  const auto* method = call != nullptr ? ast::as<ast::Attribute>(call->func) : nullptr;
  if (method == nullptr || !sema::has_fact(sema::TorchFact::InPlaceUpdate, method->attr))
    return nullptr;
  return call;
}

std::string text_of(const Context& context, const ast::Node& node) {
  return std::string(node_text(context, node));
}

// Why `call` (`T.<update>(args)`) cannot run on a copy of T whatever C says, or empty.
Problem check_update(const Context& context, const ast::Call& call) {
  const auto* method = ast::as<ast::Attribute>(call.func);
  const auto* target = ast::as<ast::Name>(method->value);
  if (target == nullptr)
    return {Reason::MutatesState,
            "the updated tensor `" + text_of(context, *method->value) + "` is not a local name"};
  if (std::string why = context.analysis.why_not_fresh(*target); !why.empty())
    return {Reason::InPlaceTargetNotFresh,
            "the updated tensor `" + std::string(target->id) +
                "` may not be one the traced code created (the update runs whatever the "
                "condition, and still bumps its version counter): " +
                why};
  for (const ast::expr* arg : call.args)
    if (ast::is<ast::Starred>(arg) || !context.analysis.is_pure(*arg))
      return {Reason::NotPure, "an argument of `" + text_of(context, call) + "` is not pure"};
  for (const ast::keyword* keyword : call.keywords)
    if (keyword->arg.empty() || !context.analysis.is_pure(*keyword->value))
      return {Reason::NotPure, "an argument of `" + text_of(context, call) + "` is not pure"};
  return {};
}

// `(T, args...)`: what runtime.update_where_ok checks of one update (keyword values too).
std::string operands(const Context& context, const ast::Call& call) {
  std::string out = "(" + text_of(context, *ast::as<ast::Attribute>(call.func)->value) + ",";
  for (const ast::expr* arg : call.args) out += " " + text_of(context, *arg) + ",";
  for (const ast::keyword* keyword : call.keywords)
    out += " " + text_of(context, *keyword->value) + ",";
  return out + ")";
}

// `T.copy_(torch.where(c, T.clone().<update>(args), T))`.
std::string dense_update(const Context& context, const ast::Call& call, std::string_view c) {
  const auto* method = ast::as<ast::Attribute>(call.func);
  std::string target = text_of(context, *method->value);
  std::string_view text = context.source.text();
  std::string arguments(text.substr(method->end, call.end - method->end));  // `(args)`
  return target + ".copy_(" + std::string(context.analysis.torch_name()) + ".where(" +
         std::string(c) + ", " + target + ".clone()." + std::string(method->attr) + arguments +
         ", " + target + "))";
}

}  // namespace

std::optional<Outcome> rewrite_inplace_update(Context& context, const ast::If& statement) {
  std::vector<const ast::Call*> updates;
  for (const ast::stmt* s : statement.body) {
    const ast::Call* call = update_call(*s);
    if (call == nullptr) return std::nullopt;
    updates.push_back(call);
  }
  if (updates.empty() || !statement.orelse.empty() || context.analysis.torch_name().empty())
    return std::nullopt;
  auto decline = [](Problem why) {
    return Outcome::declined(why.reason, "in-place update: " + why.detail);
  };
  if (Problem why = check_unpredicated(context, statement); !why.empty())
    return Outcome::declined(why.reason, why.detail);
  if (!context.analysis.is_pure(*statement.test) || condition_uses_scalar(statement.test))
    return decline({Reason::NotPure,
                    "the condition is not pure (it is evaluated once more "
                    "where the check fails)"});
  std::string c = context.fresh_name("c");
  std::string check =
      context.runtime + ".update_where_ok(" + c + " := (" + text_of(context, *statement.test) + ")";
  for (const ast::Call* call : updates) {
    if (Problem why = check_update(context, *call); !why.empty()) return decline(why);
    check += ", " + operands(context, *call);
  }
  check += ")";
  std::string indent = indentation_of(context, statement);
  std::string step = indent_unit(context, statement, indent);
  bool is_elif = written_as_elif(context, statement);
  std::string replacement = (is_elif ? "elif " : "if ") + check + ":";
  for (const ast::Call* call : updates)
    replacement += "\n" + indent + step + dense_update(context, *call, c);
  replacement += "\n" + indent + (is_elif ? "" : "el") + text_of(context, statement);
  Outcome outcome;
  outcome.fixed = true;
  outcome.needs_runtime = true;
  outcome.edits.push_back(TextEdit{statement.begin, statement.end, std::move(replacement)});
  return outcome;
}

}  // namespace graphmend::rewrite::where_detail
