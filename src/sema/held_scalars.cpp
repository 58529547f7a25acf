// Held scalars (see HeldScalar in sema.h): a Python scalar read from a tensor that the
// function only compares with ints, tests with isinstance, tests the truth of in guards
// and reads in the bodies of guards. Mended code holds the tensor while compiling, as int64,
// bool or float64 (runtime.item_later); compared with an int below 2**53 that gives exactly
// what the scalar gives, so each comparison stays as written and Dynamo keeps it in the
// graph.
#include <algorithm>
#include <functional>

#include "sema/analysis_impl.h"
#include "sema/helpers.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

namespace {

bool is_ordering(ast::CmpOpKind op) {
  switch (op) {
    case ast::CmpOpKind::Lt:
    case ast::CmpOpKind::LtE:
    case ast::CmpOpKind::Gt:
    case ast::CmpOpKind::GtE:
    case ast::CmpOpKind::Eq:
    case ast::CmpOpKind::NotEq:
      return true;
    default:
      return false;
  }
}

bool is_name(const ast::expr* e, std::string_view id) {
  const auto* name = as<ast::Name>(e);
  return name != nullptr && name->id == id;
}

// A nested scope: its reads are the closure's (Flow::captured says whether any are the
// scalar's).
bool opens_scope(const ast::Node* n) {
  return is<ast::FunctionDef>(n) || is<ast::AsyncFunctionDef>(n) || is<ast::Lambda>(n) ||
         is<ast::ClassDef>(n);
}

}  // namespace

// An int by its form, whatever the object it is read from: an int literal below 10**15
// (float64 holds it exactly), `len(...)`, `<x>.shape[<int>]`, `<x>.ndim`, `<x>.dim()`,
// `<x>.numel()`, `<x>.size(<int>)` (tensors, arrays and torch.Size give ints there), -, +,
// * of those, and locals bound only to such values.
bool AnalysisImpl::int_by_form(const ast::expr* e, ScopeId scope, int depth) const {
  if (e == nullptr || depth > 8) return false;
  auto small_literal = [](const ast::Constant* c) {
    if (c == nullptr || c->value.type != ast::ConstantValue::Type::Int) return false;
    std::string_view digits = c->value.text;  // decimal below 10**15: exact in float64 too
    return !digits.empty() && digits.size() <= 15 &&
           std::all_of(digits.begin(), digits.end(), [](char d) { return d >= '0' && d <= '9'; });
  };
  if (small_literal(as<ast::Constant>(e))) return true;
  if (const auto* u = as<ast::UnaryOp>(e); u && u->op == ast::UnaryOpKind::USub)
    return int_by_form(u->operand, scope, depth + 1);
  if (const auto* b = as<ast::BinOp>(e)) {
    return (b->op == ast::OperatorKind::Add || b->op == ast::OperatorKind::Sub ||
            b->op == ast::OperatorKind::Mult) &&
           int_by_form(b->left, scope, depth + 1) && int_by_form(b->right, scope, depth + 1);
  }
  if (const auto* name = as<ast::Name>(e)) {
    std::vector<const Def*> defs = reaching_defs(*name, scope);
    return !defs.empty() && std::all_of(defs.begin(), defs.end(), [&](const Def* def) {
      return def->source == Def::Source::Value && int_by_form(def->value, scope, depth + 1);
    });
  }
  ShapeRead read = shape_read(e, scope);  // of anything: its object need not be a tensor
  return read.object != nullptr && (read.index == nullptr || small_literal(read.index));
}

ScalarRead AnalysisImpl::scalar_read(const ast::expr& e) const {
  const auto* call = as<ast::Call>(&e);
  if (call == nullptr || !call->keywords.empty()) return {};
  if (const auto* method = as<ast::Attribute>(call->func)) {
    if (method->attr == "item" && call->args.empty()) return {method->value, "item"};
    return {};
  }
  const auto* name = as<ast::Name>(call->func);
  if (name == nullptr || (name->id != "int" && name->id != "float" && name->id != "bool") ||
      lookup(scope_of(call), name->id) != nullptr || call->args.size != 1 ||
      is<ast::Starred>(call->args[0]))
    return {};  // a local `int`, `float` or `bool` shadows the builtin
  return {call->args[0], name->id};
}

HeldScalar AnalysisImpl::held_scalar(const ast::stmt& statement) const {
  HeldScalar held;
  const auto* assign = as<ast::Assign>(&statement);
  const auto* target =
      assign != nullptr && assign->targets.size == 1 ? as<ast::Name>(assign->targets[0]) : nullptr;
  if (target == nullptr) {
    held.problem = {reasons::Reason::ScalarAssignedAgain, "the scalar is not assigned to one name"};
    return held;
  }
  return held_scalar_of(*target, *assign->value, scope_of(&statement));
}

HeldScalar AnalysisImpl::held_scalar_of(const ast::Name& target, const ast::expr& value,
                                        ScopeId scope) const {
  HeldScalar held;
  held.target = &target;
  ScalarRead read = scalar_read(value);
  held.tensor = read.tensor;
  held.read = read.read;
  const std::string name = "`" + std::string(target.id) + "`";
  auto fail = [&](reasons::Reason reason, std::string detail) {
    held.problem = {reason, std::move(detail)};
    return held;
  };
  if (held.tensor == nullptr)
    return fail(reasons::Reason::ScalarReadForm,
                "the scalar is read otherwise than `.item()`, `int()`, `float()` or `bool()`");
  Flow* flow = scope.is_function() ? flow_for_scope(scope) : nullptr;
  auto var = flow != nullptr ? flow->var_ids.find(target.id) : decltype(flow->var_ids)::iterator{};
  if (flow == nullptr || var == flow->var_ids.end() || flow->all_live)
    return fail(reasons::Reason::ScalarAssignedAgain, "the scalar is not a local of a function");
  const Scope& own = scopes_[scope.index];
  if (own.globals.count(target.id) || own.nonlocals.count(target.id) || flow->captured[var->second])
    return fail(reasons::Reason::ScalarAssignedAgain,
                name + " is global, nonlocal or read by a nested function");
  for (uint32_t d : flow->defs_of_var[var->second]) {
    const Def& def = flow->defs[d];
    if (def.source != Def::Source::Unbound && def.origin != &target)
      return fail(reasons::Reason::ScalarAssignedAgain, name + " is assigned elsewhere too");
  }
  const auto* function = functions_[scope.index - 1].node;
  const auto* def = as<ast::FunctionDef>(function);
  const auto* async_def = as<ast::AsyncFunctionDef>(function);
  if (def == nullptr && async_def == nullptr)
    return fail(reasons::Reason::ScalarAssignedAgain, "the scalar is not a local of a function");
  const ast::Seq<ast::stmt*>& body = def != nullptr ? def->body : async_def->body;
  bool other_use = false;
  // Every read of the name, by where it stands (a tree too deep to walk counts as another use).
  int depth = 0;
  std::function<void(const ast::Node*, bool)> visit = [&](const ast::Node* n, bool in_guard) {
    if (n == nullptr || other_use || opens_scope(n)) return;
    if (depth > kMaxDepth) {
      other_use = true;
      return;
    }
    struct Deeper {
      int& depth;
      explicit Deeper(int& d) : depth(++d) {}
      ~Deeper() { --depth; }
    } deeper(depth);
    if (const auto* guard = as<ast::If>(n);
        guard && !in_guard && ends_in_raise(guard->body, torch_name_)) {
      // `if n: raise ...` or `if not n: raise ...`: the guard's test is the held value's truth
      const ast::expr* truth = guard->test;
      if (const auto* negated = as<ast::UnaryOp>(truth);
          negated && negated->op == ast::UnaryOpKind::Not)
        truth = negated->operand;
      if (is_name(truth, target.id) && guard->orelse.empty())
        held.tests.push_back(guard->test);
      else
        visit(guard->test, false);
      for (const ast::stmt* s : guard->body) visit(s, true);
      for (const ast::stmt* s : guard->orelse) visit(s, false);
      return;
    }
    if (const auto* read = as<ast::Name>(n); read && read->id == target.id) {
      if (read->ctx == ast::ExprContext::Load && in_guard)
        held.guard_reads.push_back(read);
      else if (read != &target)
        other_use = true;
      return;
    }
    if (!in_guard) {
      if (const auto* compare = as<ast::Compare>(n);
          compare && compare->ops.size == 1 && is_ordering(compare->ops[0])) {
        const ast::expr* left = compare->left;
        const ast::expr* right = compare->comparators[0];
        if (is_name(left, target.id) && int_by_form(right, scope, 0)) {
          held.tests.push_back(compare);
          return;
        }
        if (is_name(right, target.id) && int_by_form(left, scope, 0)) {
          held.tests.push_back(compare);
          return;
        }
      }
      if (const auto* call = as<ast::Call>(n)) {
        const auto* callee = as<ast::Name>(call->func);
        if (callee && callee->id == "isinstance" && lookup(scope, "isinstance") == nullptr &&
            call->args.size == 2 && call->keywords.empty() && is_name(call->args[0], target.id)) {
          held.type_tests.push_back(call);
          visit(call->args[1], false);
          return;
        }
      }
    }
    ast::for_each_child(n, [&](const ast::Node* child) { visit(child, in_guard); });
  };
  for (const ast::stmt* s : body) visit(s, false);
  if (other_use)
    return fail(reasons::Reason::ScalarUsedOtherwise,
                name +
                    " is used otherwise than compared with an int, tested with isinstance "
                    "or read in the body of a guard");
  if (held.tests.empty())
    return fail(reasons::Reason::ScalarUsedOtherwise, name + " is never compared with an int");
  return held;
}

// Whether every definition of `name` reaching it is a scalar that may be held: it holds a
// tensor while compiling where the mended assignment holds it (runtime.item_later).
bool AnalysisImpl::holds_scalar(const ast::Name& name, ScopeId scope) const {
  std::vector<const Def*> defs = reaching_defs(name, scope);
  return !defs.empty() && std::all_of(defs.begin(), defs.end(), [&](const Def* def) {
    const auto* target = as<ast::Name>(def->origin);
    return def->source == Def::Source::Value && target != nullptr &&
           !held_scalar_of(*target, *def->value, scope).problem;
  });
}

}  // namespace graphmend::sema
