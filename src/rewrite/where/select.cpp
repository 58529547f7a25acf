// [Where], a conditional expression that is neither an assignment's whole value nor a
// return's (`torch.cat([x, a if t.sum() > 0 else b])`): written in place as
//
//     (rt.select(__gm_c0, lambda: (a), lambda: (b))
//      if rt.selecting(__gm_c0 := (t.sum() > 0)) else ((a) if __gm_c0 else (b)))
//
// The condition is evaluated once, first, as Python does. runtime.selecting holds while
// compiling with grad mode off, for a one-element bool condition and plain tensors where
// the text assumed them (values whose type it cannot show); then select computes both
// values (pure, so each may be evaluated where the original evaluates only one) and
// selects with torch.where where where_ok holds (tensors of one shape, dtype and device).
// Otherwise, and eagerly, the caller's own conditional expression runs: its break, in
// training, is in the caller's frame, as the original's (a break inside select would make
// Dynamo compile the rest of the caller as a graph of its own).
#include <string>
#include <vector>

#include "ast/walk.h"
#include "rewrite/defer/defer.h"
#include "rewrite/where/plan.h"
#include "rewrite/where/planner.h"

namespace graphmend::rewrite::where_detail {

namespace {

// `<runtime>.<name>(...)`: mended code's own call.
bool is_runtime_call(const Context& context, const ast::Call& call) {
  const auto* method = ast::as<ast::Attribute>(call.func);
  const auto* module = method != nullptr ? ast::as<ast::Name>(method->value) : nullptr;
  return module != nullptr && module->id == context.runtime;
}

bool calls_runtime(const Context& context, const ast::expr& e) {
  return ast::contains(&e, [&](const ast::Node* n) {
    const auto* call = ast::as<ast::Call>(n);
    return call != nullptr && is_runtime_call(context, *call);
  });
}

// The first value of `e` that is not pure, or null; as the text shows, else with the values
// it cannot show assumed tensors (`assumed`: runtime.select checks them), nothing else
// assumed.
const ast::expr* impure_value(const Context& context, const ast::stmt& statement,
                              const ast::IfExp& e, std::vector<const ast::expr*>& assumed) {
  const ast::expr* impure = nullptr;
  for (const ast::expr* value : {e.body, e.orelse})
    if (impure == nullptr && !context.analysis.is_pure(*value)) impure = value;
  if (impure == nullptr) return nullptr;
  sema::Speculation speculation;
  speculation.site = &statement;
  sema::Speculation* before = context.analysis.speculate(&speculation);
  bool pure = context.analysis.is_pure(*e.body) && context.analysis.is_pure(*e.orelse);
  context.analysis.speculate(before);
  if (!pure || !speculation.floating.empty() || !speculation.numbers.empty() ||
      !speculation.preconditions.empty() || !speculation.methods.empty())
    return impure;
  assumed = speculation.assumed;
  return nullptr;
}

}  // namespace

std::optional<Outcome> rewrite_inline_conditional(Context& context, const ast::stmt& statement,
                                                  const ast::IfExp& e) {
  auto decline = [](Reason reason, std::string why) {
    return Outcome::declined(reason, "conditional expression inside an expression: " + why);
  };
  if (context.analysis.torch_name().empty()) return std::nullopt;
  auto encloses = [&](const ast::Node* n) { return n->begin <= e.begin && e.end <= n->end; };
  if (ast::contains(&statement, [&](const ast::Node* n) {
        const auto* text = ast::as<ast::JoinedStr>(n);
        return text != nullptr && encloses(text);
      }))
    return decline(Reason::SelectPlace, "it is inside an f-string");
  // [Defer] records a print's, a log's or a warning's arguments as they are
  if (ast::contains(&statement, [&](const ast::Node* n) {
        const auto* call = ast::as<ast::Call>(n);
        if (call == nullptr || !encloses(call)) return false;
        return is_runtime_call(context, *call) || deferrable_kind(context, *call).has_value();
      }))
    return decline(Reason::SelectPlace, "it is an argument of a print, logging or warnings call");
  // a walrus there binds in another scope, or is refused; the fallback of a mended one
  if (ast::contains(&statement, [&](const ast::Node* n) {
        bool scope = ast::is<ast::ListComp>(n) || ast::is<ast::SetComp>(n) ||
                     ast::is<ast::DictComp>(n) || ast::is<ast::GeneratorExp>(n) ||
                     ast::is<ast::Lambda>(n);
        const auto* choice = ast::as<ast::IfExp>(n);
        bool mended = choice != nullptr && choice != &e && calls_runtime(context, *choice->test);
        return (scope || mended) && encloses(n);
      }))
    return decline(Reason::SelectPlace, "it is inside a comprehension, a lambda or a mended one");
  if (context.analysis.function_of(&e) == nullptr)
    return decline(Reason::SelectPlace, "it is not inside a function");
  if (condition_uses_scalar(e.test))
    return decline(Reason::UsesItem, "condition uses .item()/.tolist() (GM106, out of scope)");
  for (const ast::expr* value : {e.body, e.orelse}) {
    if (contains_kind(value, {ast::Kind::Yield, ast::Kind::YieldFrom, ast::Kind::Await,
                              ast::Kind::NamedExpr}))
      return decline(Reason::UnsupportedStatement,
                     "a value holds yield, await or := (a lambda would change its scope)");
    if (condition_uses_scalar(value))
      return decline(Reason::UsesItem, "a value uses .item()/.tolist() (GM106, out of scope)");
  }
  std::vector<const ast::expr*> assumed;
  if (const ast::expr* impure = impure_value(context, statement, e, assumed))
    return decline(Reason::NotPure, "the value `" + short_text(node_text(context, *impure)) +
                                        "` is not pure (both are computed while compiling)");
  auto text = [&](const ast::expr* n) { return "(" + std::string(node_text(context, *n)) + ")"; };
  std::string c = context.fresh_name("c");
  std::string ready = context.runtime + ".selecting(" + c + " := " + text(e.test);
  for (const ast::expr* value : assumed) ready += ", " + std::string(node_text(context, *value));
  std::string select = context.runtime + ".select(" + c + ", lambda: " + text(e.body) +
                       ", lambda: " + text(e.orelse) + ")";
  Outcome outcome;
  outcome.fixed = true;
  outcome.needs_runtime = true;
  outcome.edits.push_back(TextEdit{e.begin, e.end,
                                   "(" + select + " if " + ready + ") else (" + text(e.body) +
                                       " if " + c + " else " + text(e.orelse) + "))"});
  return outcome;
}

}  // namespace graphmend::rewrite::where_detail
