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
//
// A list read from a range tensor of Python ints, `torch.arange(1, len(x.shape)).tolist()`
// (dimensions to reduce over), is the range itself: it becomes
// `(list(range(1, len(x.shape))) if <runtime>.static_range_ok(1, len(x.shape)) else <as
// written>)`, the check resolved while tracing (exact ints, a short range).
//
// Any other `.item()`, `int(X)` or `float(X)` read (a scalar that becomes a size, a
// divisor, a factor) is captured: `<runtime>.captured_item(X)` (`captured_int`,
// `captured_float`) reads the scalar as written, and where Dynamo breaks inside it, asks for
// the frame to be traced with `capture_scalar_outputs` (runtime/capture.py): the read then
// stays in the graph. A frame whose trace fails under the option is traced again without it
// and keeps the original's break.
#include <cctype>
#include <string>
#include <string_view>

#include "rewrite/rewrite.h"
#include "rewrite/scalar/capture_uses.h"

namespace graphmend::rewrite {
namespace {

// An int literal's digits (underscores removed, "0x1F") hold a nonzero digit past the radix
// prefix: "0x0", "0o0", "0b0" and "000" are zero.
bool nonzero_literal(std::string_view digits) {
  if (digits.size() > 2 && digits[0] == '0' && std::isalpha(static_cast<unsigned char>(digits[1])))
    digits.remove_prefix(2);
  return digits.find_first_not_of('0') != std::string_view::npos;
}

// `torch.arange(<bounds>).tolist()` (torch.arange however imported) with one to three positional
// bounds, pure, a step that is a nonzero int literal (range and arange raise different errors for a
// zero step) and no keyword but `device`: the bounds' text, else nullopt.
std::optional<std::string> arange_bounds(const Context& context, const ast::Node* site) {
  const auto* read = ast::as<ast::Call>(site);
  const auto* tolist = read ? ast::as<ast::Attribute>(read->func) : nullptr;
  if (tolist == nullptr || tolist->attr != "tolist" || !read->args.empty() ||
      !read->keywords.empty())
    return std::nullopt;
  const auto* arange = ast::as<ast::Call>(tolist->value);
  if (arange == nullptr) return std::nullopt;
  sema::Callee callee = context.analysis.resolve_call(*arange);
  if (callee.kind != sema::CalleeKind::TorchFunction || callee.qualified_name != "torch.arange")
    return std::nullopt;
  if (arange->args.empty() || arange->args.size > 3) return std::nullopt;
  for (const ast::keyword* keyword : arange->keywords)
    if (keyword->arg != "device" || !context.analysis.is_pure(*keyword->value)) return std::nullopt;
  std::string bounds;
  for (uint32_t i = 0; i < arange->args.size; ++i) {
    const ast::expr* bound = arange->args[i];
    if (ast::is<ast::Starred>(bound) || !context.analysis.is_pure(*bound)) return std::nullopt;
    if (i == 2) {
      const auto* step = ast::as<ast::Constant>(bound);
      if (step == nullptr || step->value.type != ast::ConstantValue::Type::Int ||
          !nonzero_literal(step->value.text))
        return std::nullopt;
    }
    bounds += (i ? ", " : "") + std::string(node_text(context, *bound));
  }
  return bounds;
}

Outcome static_range(const sema::BreakTag& tag, Context& context, const std::string& bounds) {
  Outcome outcome;
  outcome.fixed = true;
  outcome.needs_runtime = true;
  std::string original(node_text(context, *tag.site));
  outcome.edits.push_back({tag.site->begin, tag.site->end,
                           "(list(range(" + bounds + ")) if " + context.runtime +
                               ".static_range_ok(" + bounds + ") else " + original + ")"});
  return outcome;
}

// `X.item()`, `int(X)` or `float(X)` whose value only computes (capture_uses.h): read
// in place by the runtime, which asks Dynamo to capture it. A `bool(X)` is a truth test, whose
// capture would only move the break. nullopt where the read has no such form, a decline
// where its uses keep it from being captured.
std::optional<Outcome> captured_read(const sema::BreakTag& tag, Context& context) {
  const auto* site = ast::as<ast::Call>(tag.site);
  sema::ScalarRead read = site ? context.analysis.scalar_read(*site) : sema::ScalarRead{};
  if (read.tensor == nullptr || read.read == "bool") return std::nullopt;
  if (std::optional<reasons::Problem> problem = capture_problem(context, *site))
    return Outcome::declined(*problem);
  Outcome outcome;
  outcome.fixed = true;
  outcome.form = "scalar_capture";
  outcome.needs_runtime = true;
  const char* reader = read.read == "item"  ? ".captured_item("
                       : read.read == "int" ? ".captured_int("
                                            : ".captured_float(";
  outcome.edits.push_back(
      {site->begin, site->end,
       context.runtime + reader + std::string(node_text(context, *read.tensor)) + ")"});
  return outcome;
}

}  // namespace

std::optional<Outcome> rewrite_scalar(const sema::BreakTag& tag, Context& context) {
  if (tag.kind != sema::BreakKind::ScalarUse) return std::nullopt;
  if (std::optional<std::string> bounds = arange_bounds(context, tag.site))
    return static_range(tag, context, *bounds);
  const auto* assign = ast::as<ast::Assign>(tag.statement);
  bool whole_value = assign != nullptr && assign->value == tag.site;
  sema::HeldScalar held;
  if (whole_value) held = context.analysis.held_scalar(*tag.statement);
  if (!whole_value || held.problem) {
    // Not held: captured, or declined with what keeps it from being captured (for a scalar
    // used otherwise than compared, that use says more than "used otherwise").
    std::optional<Outcome> captured = captured_read(tag, context);
    bool held_says_more =
        whole_value &&
        (!captured || (held.problem->reason != reasons::Reason::ScalarUsedOtherwise &&
                       held.problem->reason != reasons::Reason::ScalarReadForm));
    if (captured && (captured->fixed || !held_says_more)) return captured;
    if (whole_value) return Outcome::declined(*held.problem);
    return Outcome::declined(
        reasons::Reason::OutOfScope,
        "out of scope: no rewrite handles a tensor converted to a Python scalar other than "
        "one assigned to a name and compared with ints, or one read to compute with");
  }
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
