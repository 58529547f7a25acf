// [Where], in-place masked updates under `any()` of their own mask:
//
//     if M.any():                      if rt.masked_fill_ok(M, v, T) and rt.masked_index_ok(M, w,
//     U, slice(1, None)):
//         T.masked_fill_(M, v)    ->       T.masked_fill_(M, v)
//         U[1:][M] = w                     U[1:][M] = w
//                                      elif M.any():
//                                          <the original body>
//
// With an all-False mask the updates change no value, so the test may be dropped, except
// that an in-place update still bumps the tensor's version counter and, compiled, writes a
// mutated input back: a caller that saved the tensor for backward would then fail. So every
// updated tensor must be one the traced code created itself (Analysis::why_not_fresh), and
// the run-time check (False eagerly, resolved while tracing) asks for grad mode off, a bool
// mask on the tensor's device whose shape fits, a floating tensor and a value it can hold.
#include "rewrite/where/masked.h"

#include <string>
#include <vector>

#include "rewrite/masked_assign/masked_assign.h"
#include "rewrite/where/plan.h"

namespace graphmend::rewrite::where_detail {
namespace {

// One in-place update of the body: `base[slices...]` updated under the mask with `value`.
struct Update {
  bool indexed = false;  // `X[M] = v` (masked_index_ok); else `X.masked_fill_(M, v)`
  const ast::expr* target = nullptr;
  const ast::Name* base = nullptr;
  std::vector<const ast::Slice*> slices;
  const ast::expr* value = nullptr;
  const ast::expr* mask = nullptr;
  // `X[M] = <value of selections by M>` (masked_assign_ok): stored densely
  std::optional<DenseValue> dense;
  const ast::stmt* statement = nullptr;
};

// M of `M.any()` or `torch.any(M)`, else null.
const ast::expr* any_operand(const Context& context, const ast::expr* test) {
  const auto* call = ast::as<ast::Call>(test);
  if (call == nullptr || !call->keywords.empty()) return nullptr;
  const auto* method = ast::as<ast::Attribute>(call->func);
  if (method != nullptr && method->attr == "any" && call->args.empty()) {
    if (context.analysis.resolve_call(*call).qualified_name != "torch.any") return method->value;
  }
  if (call->args.size == 1 && context.analysis.resolve_call(*call).qualified_name == "torch.any")
    return call->args[0];
  return nullptr;
}

// The update a body statement makes, when it is `X.masked_fill_(...)`,
// `X.masked_scatter_(...)` or `X[...] = v`.
std::optional<Update> update_of(const ast::stmt& s) {
  Update u;
  if (const auto* e = ast::as<ast::Expr>(&s)) {
    const auto* call = ast::as<ast::Call>(e->value);
    const auto* method = call ? ast::as<ast::Attribute>(call->func) : nullptr;
    if (method == nullptr || (method->attr != "masked_fill_" && method->attr != "masked_scatter_"))
      return std::nullopt;
    u.target = method->value;
    if (call->args.size == 2 && call->keywords.empty()) {
      u.mask = call->args[0];
      u.value = call->args[1];
    }
    return u;
  }
  const auto* assign = ast::as<ast::Assign>(&s);
  const auto* store =
      assign && assign->targets.size == 1 ? ast::as<ast::Subscript>(assign->targets[0]) : nullptr;
  if (store == nullptr) return std::nullopt;
  u.indexed = true;
  u.target = store->value;
  u.mask = store->slice;
  u.value = assign->value;
  return u;
}

bool is_int_literal(const ast::expr* e) {
  if (const auto* u = ast::as<ast::UnaryOp>(e); u && u->op == ast::UnaryOpKind::USub)
    e = u->operand;
  const auto* c = ast::as<ast::Constant>(e);
  return c != nullptr && c->value.type == ast::ConstantValue::Type::Int;
}

// A Python number written out: a literal (signed), `float("inf")` and the like, `math.inf`.
bool is_number_literal(const Context& context, const ast::expr* e) {
  if (const auto* u = ast::as<ast::UnaryOp>(e);
      u && (u->op == ast::UnaryOpKind::USub || u->op == ast::UnaryOpKind::UAdd))
    e = u->operand;
  if (const auto* c = ast::as<ast::Constant>(e)) {
    using Type = ast::ConstantValue::Type;
    return c->value.type == Type::Int || c->value.type == Type::Float ||
           c->value.type == Type::True || c->value.type == Type::False;
  }
  if (const auto* call = ast::as<ast::Call>(e)) {
    sema::Callee callee = context.analysis.resolve_call(*call);
    const auto* text = call->args.size == 1 ? ast::as<ast::Constant>(call->args[0]) : nullptr;
    return callee.kind == sema::CalleeKind::Builtin && callee.qualified_name == "float" &&
           call->keywords.empty() && text != nullptr &&
           text->value.type == ast::ConstantValue::Type::Str;
  }
  if (const auto* attr = ast::as<ast::Attribute>(e)) {
    const auto* module = ast::as<ast::Name>(attr->value);
    return module != nullptr && module->id == "math" &&
           (attr->attr == "inf" || attr->attr == "nan" || attr->attr == "pi" || attr->attr == "e");
  }
  return false;
}

// Splits `name[a:b][c:]...` into its name and slices (integer or omitted bounds only: such
// slicing cannot raise once the check has seen enough dimensions).
bool split_target(Update& u) {
  const ast::expr* e = u.target;
  std::vector<const ast::Slice*> slices;
  while (const auto* sub = ast::as<ast::Subscript>(e)) {
    const auto* slice = ast::as<ast::Slice>(sub->slice);
    if (slice == nullptr) return false;
    for (const ast::expr* bound : {slice->lower, slice->upper, slice->step})
      if (bound != nullptr && !is_int_literal(bound)) return false;
    slices.insert(slices.begin(), slice);
    e = sub->value;
  }
  u.base = ast::as<ast::Name>(e);
  u.slices = std::move(slices);
  return u.base != nullptr;
}

std::string quoted(const Context& context, const ast::Node& node) {
  std::string text(node_text(context, node));
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return "`" + text + "`";
}

// Why `u` cannot be updated unconditionally, or empty; a value computed from selections by
// the mask is stored densely (`u.dense`).
Problem check_update(const Context& context, Update& u, const ast::Name& mask) {
  const auto* uses = ast::as<ast::Name>(u.mask);
  if (uses == nullptr || uses->id != mask.id)
    return {Reason::MaskedOtherMask,
            "updates under a mask other than the condition's `" + std::string(mask.id) + "`"};
  std::string why;
  if (u.indexed && !is_number_literal(context, u.value))
    u.dense = dense_value(context, *u.value, mask.id, why);
  if (!is_number_literal(context, u.value) && !u.dense)
    return {Reason::MaskedValueNotNumber,
            "the value " + quoted(context, *u.value) +
                " is neither a Python number nor computed element by element from selections "
                "by the mask (a tensor value of another dtype raises even under an all-False "
                "mask)"};
  Update parts = u;
  if (!split_target(parts))
    return {Reason::MaskedUpdateForm, "the updated tensor " + quoted(context, *u.target) +
                                          " is not a local name or an integer slice of one"};
  if (u.dense && !parts.slices.empty())
    return {Reason::MaskedUpdateForm, "the updated tensor " + quoted(context, *u.target) +
                                          " of a store of selections is not a local name"};
  if (std::string why = context.analysis.why_not_fresh(*parts.base); !why.empty())
    return {Reason::MaskedTargetNotFresh,
            "the updated tensor `" + std::string(parts.base->id) +
                "` may not be one the traced code created (an update under an all-False mask "
                "still bumps its version counter): " +
                why};
  return {};
}

std::string slice_text(const Context& context, const ast::Slice& slice) {
  auto bound = [&](const ast::expr* e) {
    return e == nullptr ? std::string("None") : std::string(node_text(context, *e));
  };
  std::string text = "slice(" + bound(slice.lower) + ", " + bound(slice.upper);
  if (slice.step != nullptr) text += ", " + bound(slice.step);
  return text + ")";
}

std::string check_call(const Context& context, const Update& u) {
  if (u.dense)
    return context.runtime + ".masked_assign_ok(" + std::string(node_text(context, *u.mask)) +
           ", " + std::string(node_text(context, *u.target)) + check_arguments(*u.dense) +
           ", guarded=True)";
  Update parts = u;
  split_target(parts);
  std::string text = context.runtime + (u.indexed ? ".masked_index_ok(" : ".masked_fill_ok(") +
                     std::string(node_text(context, *u.mask)) + ", " +
                     std::string(node_text(context, *u.value)) + ", " + std::string(parts.base->id);
  for (const ast::Slice* slice : parts.slices) text += ", " + slice_text(context, *slice);
  return text + ")";
}

// The offset just past the colon of the if's header, or 0 when the layout is unusual.
uint32_t header_end(const Context& context, const ast::If& statement) {
  std::string_view text = context.source.text();
  for (uint32_t i = statement.test->end; i < statement.body[0]->begin; ++i) {
    char c = text[i];
    if (c == ':') return i + 1;
    if (c != ' ' && c != '\t' && c != ')' && c != '\\' && c != '\n' && c != '\r') return 0;
  }
  return 0;
}

}  // namespace

std::optional<Outcome> rewrite_masked_update(const Context& context, const ast::If& statement) {
  const ast::expr* mask = any_operand(context, statement.test);
  if (mask == nullptr || statement.body.empty()) return std::nullopt;
  std::vector<Update> updates;
  const ast::stmt* other = nullptr;
  for (const ast::stmt* s : statement.body) {
    if (std::optional<Update> u = update_of(*s)) {
      u->statement = s;
      updates.push_back(*u);
    } else if (other == nullptr) {
      other = s;
    }
  }
  if (updates.empty()) return std::nullopt;

  auto decline = [](Reason reason, const std::string& why) {
    return Outcome::declined(reason, "masked update: " + why);
  };
  if (Problem why = check_unpredicated(context, statement); !why.empty())
    return Outcome::declined(why.reason, why.detail);
  if (!statement.orelse.empty()) return decline(Reason::MaskedHasElse, "the if has an else branch");
  if (other != nullptr)
    return decline(Reason::MaskedOtherStatement,
                   "the branch holds a statement other than in-place updates under the mask: " +
                       quoted(context, *other));
  const auto* mask_name = ast::as<ast::Name>(mask);
  if (mask_name == nullptr)
    return decline(Reason::MaskedMaskNotName,
                   "the mask " + quoted(context, *mask) +
                       " is not a local name (the check and the updates must read one tensor)");
  for (Update& u : updates) {
    if (u.mask == nullptr || u.value == nullptr)
      return decline(Reason::MaskedUpdateForm,
                     "an update is not `masked_fill_(mask, value)` with two positional arguments");
    if (Problem why = check_update(context, u, *mask_name); !why.empty())
      return decline(why.reason, why.detail);
  }
  uint32_t body_begin = header_end(context, statement);
  if (body_begin == 0)
    return decline(Reason::Other, "the if header has a layout the rewrite does not read");

  std::string checks;
  for (const Update& u : updates)
    checks += (checks.empty() ? "" : " and ") + check_call(context, u);
  std::string_view text = context.source.text();
  std::string_view original = text.substr(statement.begin, statement.end - statement.begin);
  bool is_elif = written_as_elif(context, statement);
  const ast::stmt& last = *statement.body[statement.body.size - 1];
  Outcome outcome;
  std::string body;  // the body as written, each dense store written densely
  uint32_t at = body_begin;
  for (const Update& u : updates) {
    if (!u.dense) continue;
    body += std::string(text.substr(at, u.statement->begin - at)) + context.runtime +
            ".masked_assign_(" + std::string(node_text(context, *u.target)) + ", " +
            std::string(node_text(context, *u.mask)) + ", " + u.dense->text + ")";
    at = u.statement->end;
    outcome.absorbed.insert(outcome.absorbed.end(), u.dense->reads.begin(), u.dense->reads.end());
    outcome.absorbed_as = Outcome::Absorbed::Rewritten;
  }
  body += std::string(text.substr(at, last.end - at));
  std::string replacement = (is_elif ? "elif " : "if ") + checks + ":" + body + "\n" +
                            indentation_of(context, statement) + (is_elif ? "" : "el") +
                            std::string(original);
  outcome.fixed = true;
  outcome.needs_runtime = true;
  outcome.edits.push_back(TextEdit{statement.begin, statement.end, std::move(replacement)});
  return outcome;
}

}  // namespace graphmend::rewrite::where_detail
