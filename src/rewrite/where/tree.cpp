// [Where] the decision tree of a branch: the Planner walks the branch's statements and
// builds a Tree whose leaves hold the values each path computes (see plan.h), checking each
// value can be computed whatever the condition. What makes a value torch.cond's rather than
// torch.where's is in cond_plan.cpp, the tail's checks in tail.cpp.
#include <algorithm>

#include "ast/functions.h"
#include "ast/names.h"
#include "ast/walk.h"
#include "base/contains.h"
#include "rewrite/defer/defer.h"
#include "rewrite/edits.h"
#include "rewrite/guard_raise.h"
#include "rewrite/where/planner.h"
#include "sema/aliasing.h"
#include "sema/torch_facts.h"

namespace graphmend::rewrite::where_detail {

using ast::Kind;

// Builds `tree` from a branch body. False (with `error`) when it cannot be predicated.
bool Planner::build_body(const ast::Seq<ast::stmt*>& body, Tree& tree) {
  for (uint32_t i = 0; i < body.size; ++i) {
    const ast::stmt* s = body[i];
    bool last = i + 1 == body.size;
    if (!build_statement(*s, last, tree)) return false;
    if (tree.is_split() || tree.returned || tree.raises()) return true;
  }
  if (tail == nullptr) return true;
  for (const ast::stmt* s : tail_statements) {
    if (!build_statement(*s, false, tree)) return false;
    if (tree.is_split() || tree.returned)
      return fail(Reason::Other, "the rest of the block branches or returns");
  }
  return add_return(*tail->value, tree);
}

// A split on `operands` joined by `and`, true side `body`, false side `orelse`.
bool Planner::build_split(const std::vector<const ast::expr*>& operands,
                          const ast::Seq<ast::stmt*>& body, const ast::Seq<ast::stmt*>& orelse,
                          Tree& tree) {
  if (!tree.deferred.empty())
    return fail(Reason::Other, "a nested tensor if after a call the branch records");
  tree.split_id = splits++;
  tree.on_true = std::make_unique<Tree>();
  tree.on_false = std::make_unique<Tree>();
  tree.on_true->env = tree.env;
  tree.on_false->env = tree.env;
  tree.on_true->numeric = tree.numeric;
  tree.on_false->numeric = tree.numeric;
  tree.on_true->derived = tree.derived;
  tree.on_false->derived = tree.derived;
  tree.on_true->free_reads = tree.free_reads;
  tree.on_false->free_reads = tree.free_reads;
  set_paths(tree);
  if (!build_body(body, *tree.on_true) || !build_body(orelse, *tree.on_false)) return false;
  return set_condition(operands, tree);
}

// `var = body if test else orelse` (`return ...` when `var` is empty) as a split on `test`.
bool Planner::build_conditional(const ast::IfExp& e, std::string_view var, Tree& tree) {
  tree.split_id = splits++;
  tree.on_true = std::make_unique<Tree>();
  tree.on_false = std::make_unique<Tree>();
  set_paths(tree);
  bool built = var.empty()
                   ? add_return(*e.body, *tree.on_true) && add_return(*e.orelse, *tree.on_false)
                   : add_assignment(var, *e.body, *tree.on_true) &&
                         add_assignment(var, *e.orelse, *tree.on_false);
  return built && set_condition({e.test}, tree);
}

// A split's sides: its path and the side taken.
void Planner::set_paths(Tree& tree) {
  tree.on_true->path = tree.path;
  tree.on_true->path.push_back({tree.split_id, true});
  tree.on_false->path = tree.path;
  tree.on_false->path.push_back({tree.split_id, false});
}

// The split's condition: `operands` joined by `and`, each pure and a tensor expression.
bool Planner::set_condition(const std::vector<const ast::expr*>& operands, Tree& tree) {
  if (speculation != nullptr) focus(tree);
  for (const ast::expr* operand : operands) {
    if (condition_uses_scalar(operand)) {
      error = {Reason::UsesItem, "condition uses .item()/.tolist() (GM106, out of scope)"};
      return false;
    }
    // The tensor form evaluates every operand; `and`/`or`/`not` themselves only call
    // bool(), which the fallback branch does exactly as the original.
    std::vector<const ast::expr*> leaves = condition_leaves(*operand);
    for (const ast::expr* leaf : leaves) {
      bool always_evaluated = operand == operands.front() && leaf == leaves.front();
      if (always_evaluated && is_item_comparison(context_, *leaf)) continue;
      // a chained comparison is checked link by link by its lowering (tensor_condition)
      if (const auto* chain = ast::as<ast::Compare>(leaf); chain && chain->ops.size > 1) continue;
      if (analysis_.is_pure(*leaf)) continue;
      // the root's first operand is evaluated first and on every path, as in the original
      if (always_evaluated && tree.path.empty()) {
        if (!once_condition(operands, *leaf)) return false;
        tree.evaluated_once = true;
        continue;
      }
      error = {Reason::NotPure,
               "condition operand `" + short_text(node_text(context_, *leaf)) +
                   "` is not pure (Python evaluates it on some paths only; the rewrite on all)"};
      return false;
    }
    for (const ast::Name* name : ast::loads(operand)) {
      if (tree.env.count(name->id)) {
        error = {Reason::Other, "condition reads `" + std::string(name->id) +
                                    "`, assigned earlier in the enclosing branch"};
        return false;
      }
    }
  }
  std::string tensor, python;
  for (const ast::expr* operand : operands) {
    std::optional<std::string> lowered = tensor_condition(context_, *operand);
    if (!lowered) {
      error = {Reason::NotTensor, "condition `" + short_text(node_text(context_, *operand)) +
                                      "` is not a tensor expression"};
      return false;
    }
    std::string text(node_text(context_, *operand));
    if (operands.size() > 1) text = "(" + text + ")";
    if (tensor.empty()) {
      tensor = *lowered;
      python = text;
    } else {
      tensor = torch_ + ".logical_and(" + tensor + ", " + *lowered + ")";
      python += " and " + text;
    }
  }
  tree.cond_tensor = tensor;
  tree.cond_python = parenthesize_multiline(python);
  return true;
}

// Whether `leaf`, impure and the first operand of the root's condition, can be evaluated
// once, first, into the condition's temp, which the fallback tests: only when it is the
// whole condition (bool() of the temp is then what the original's `if` calls; with
// `and`/`or`/`not` the fallback would need the other operands as written around it).
bool Planner::once_condition(const std::vector<const ast::expr*>& operands, const ast::expr& leaf) {
  std::string text = short_text(node_text(context_, leaf));
  if (operands.size() != 1 || operands.front() != &leaf)
    return fail(Reason::NotPure,
                "condition operand `" + text +
                    "` is not pure, and the condition combines it with and/or/not");
  if (contains_kind(&leaf,
                    {Kind::Yield, Kind::YieldFrom, Kind::Await, Kind::Lambda, Kind::NamedExpr}))
    return fail(Reason::NotPure,
                "condition `" + text + "` is not pure and holds yield, await, a lambda or :=");
  return true;
}

// Points the speculation at `tree`: the names assigned so far on its path.
void Planner::focus(const Tree& tree) {
  speculation->local.clear();
  for (const auto& [name, temp] : tree.env) speculation->local.push_back(name);
  speculation->derived = tree.derived;
}

bool Planner::pure_as_written(const ast::expr& e) const {
  sema::Speculation* active = analysis_.speculate(nullptr);
  bool pure = analysis_.is_pure(e);
  analysis_.speculate(active);
  return pure;
}

bool Planner::fail(Reason reason, std::string detail) {
  return fail(Problem{reason, std::move(detail)});
}

bool Planner::fail(Problem problem) {
  error = std::move(problem);
  return false;
}

namespace {

// Why a statement of kind `kind` cannot be in a predicated branch.
Problem unsupported_statement(Kind kind) {
  switch (kind) {
    case Kind::AugAssign:
      return {Reason::UnsupportedStatement,
              "augmented assignment in a branch (in place on tensors)"};
    case Kind::Break:
    case Kind::Continue:
      return {Reason::UnsupportedStatement, "branch contains break/continue"};
    case Kind::Delete:
      return {Reason::UnsupportedStatement, "branch deletes a name (del)"};
    case Kind::Global:
    case Kind::Nonlocal:
      return {Reason::Other, "branch declares global/nonlocal names"};
    case Kind::FunctionDef:
    case Kind::AsyncFunctionDef:
    case Kind::ClassDef:
      return {Reason::UnsupportedStatement, "branch contains a nested def/class"};
    case Kind::Import:
    case Kind::ImportFrom:
      return {Reason::UnsupportedStatement, "branch contains an import"};
    default:
      return {Reason::UnsupportedStatement, "branch contains a loop, with, try or match statement"};
  }
}

}  // namespace

bool Planner::build_statement(const ast::stmt& s, bool last, Tree& tree) {
  if (!reads_stored_attribute(s, tree)) return false;
  switch (s.kind) {
    case Kind::Pass:
      return true;
    case Kind::Assign:
    case Kind::AnnAssign:
      return build_assignment(s, tree);
    case Kind::Return: {
      auto& n = static_cast<const ast::Return&>(s);
      if (!last) return fail(Reason::PartialReturn, "statements after return in a branch");
      if (n.value == nullptr) return fail(Reason::PartialReturn, "bare return in a branch");
      return add_return(*n.value, tree);
    }
    case Kind::If:
      return build_nested_if(static_cast<const ast::If&>(s), last, tree);
    case Kind::Raise:
      return add_raise(static_cast<const ast::Raise&>(s), last, tree);
    case Kind::Expr: {
      auto& n = static_cast<const ast::Expr&>(s);
      if (contains_kind(n.value, {Kind::Yield, Kind::YieldFrom, Kind::Await}))
        return fail(Reason::UnsupportedStatement, "branch contains yield/await");
      if (const ast::Name* target = sema::in_place_receiver(n))
        return add_in_place_call(n, *target, tree);
      return add_deferred_call(n, tree);
    }
    default:
      return fail(unsupported_statement(s.kind));
  }
}

// `name.method_(...)` in a branch, on a name holding a tensor no other name or object holds
// (sema::is_fresh_in_place_target, asked by check_if before any branch is planned):
// torch.cond's only, in the last pass (Dynamo's trace checks the call), its branch function
// changing a copy bound to the name (`out = out.clone()`, then the call as written), which
// it then returns like an assigned name.
bool Planner::add_in_place_call(const ast::Expr& statement, const ast::Name& target, Tree& tree) {
  const auto& call = *ast::as<ast::Call>(statement.value);
  if (!traced_helpers || root == nullptr)
    return fail(Reason::MutatesState, "a branch changes `" + std::string(target.id) +
                                          "` in place (" + std::string(kInPlaceOnCopies) + ")");
  for (const ast::expr* argument : call.args)
    if (ast::is<ast::Starred>(argument) || !cond_eligible_when_traced(*argument))
      return fail(Reason::NotPure, "an argument of an in-place call in a branch is not pure");
  for (const ast::keyword* keyword : call.keywords)
    if (keyword->arg.empty() || !cond_eligible_when_traced(*keyword->value))
      return fail(Reason::NotPure, "an argument of an in-place call in a branch is not pure");
  std::string_view var = target.id;
  if (tree.env.count(var) == 0)
    tree.cond.body.push_back(std::string(var) + " = " + std::string(var) + ".clone()");
  note_free_reads(call, tree);  // the receiver's too
  note_reads(call, tree);
  tree.cond.body.push_back(std::string(node_text(context_, statement)));
  int temp = temps++;
  tree.assigns.push_back({var, temp, std::string(var)});  // torch.where never takes it
  tree.env[var] = temp;
  if (!contains(tree.assigned, var)) tree.assigned.push_back(var);
  std::erase(tree.numeric, std::string(var));
  if (speculation != nullptr && !contains(tree.derived, var)) tree.derived.push_back(var);
  tree.alias[var] = false;
  tree.shares[var] = false;
  tree.stored_name[var] = nullptr;
  expensive = true;
  changes_copies = true;
  return true;
}

// `name = value` or `name: T = value` in a branch.
bool Planner::build_assignment(const ast::stmt& s, Tree& tree) {
  if (const ast::Attribute* store = attribute_store(s)) {
    // merged as a variable named by its text; the rewrite stores once, after every value
    std::string_view var = node_text(context_, *store);
    std::string_view base = ast::as<ast::Name>(store->value)->id;
    if (tree.env.count(var) != 0 || tree.env.count(base) != 0)
      return fail(Reason::MutatesState, "a branch stores `" + std::string(var) +
                                            "` twice or after assigning `" + std::string(base) +
                                            "`");
    return add_assignment(var, *static_cast<const ast::Assign&>(s).value, tree);
  }
  if (const auto* n = ast::as<ast::Assign>(&s)) {
    if (const auto* names = n->targets.size == 1 ? ast::as<ast::Tuple>(n->targets[0]) : nullptr)
      return build_unpacking(*names, *n->value, tree);
    auto* target = n->targets.size == 1 ? ast::as<ast::Name>(n->targets[0]) : nullptr;
    if (target == nullptr)
      return fail(Reason::Other, "assignment to a target that is not a single name");
    return add_assignment(target->id, *n->value, tree);
  }
  auto& n = static_cast<const ast::AnnAssign&>(s);
  auto* target = ast::as<ast::Name>(n.target);
  if (target == nullptr || n.value == nullptr)
    return fail(Reason::Other, "annotated assignment without a value or to a non-name target");
  return add_assignment(target->id, *n.value, tree);
}

namespace {

// How many tensors `call` gives, where the callee alone fixes it (`torch.aminmax(x)`,
// `x.sort(dim)`: two, torch_facts' PairOp); 0 otherwise (`x.chunk(n)`, `torch.max(x, dim)`).
size_t fixed_tuple_arity(const ast::Call& call) {
  const auto* method = ast::as<ast::Attribute>(call.func);
  return method != nullptr && sema::has_fact(sema::TorchFact::PairOp, method->attr) ? 2 : 0;
}

// How many values a helper of the module gives where every `return` of its own body returns
// a tuple display of that many (`return self.lin(x), x.sum()`); 0 otherwise.
size_t returned_tuple_arity(const sema::Callee& callee) {
  const auto* def = ast::as<ast::FunctionDef>(callee.definition);
  if (def == nullptr) return 0;
  size_t arity = 0;
  bool mixed = false;
  ast::walk_own_body(def, [&](const ast::Node* n) {
    const auto* ret = ast::as<ast::Return>(n);
    if (ret == nullptr) return;
    const auto* tuple = ret->value != nullptr ? ast::as<ast::Tuple>(ret->value) : nullptr;
    size_t size = tuple != nullptr ? tuple->elts.size : 0;
    mixed |= size == 0 || (arity != 0 && size != arity);
    arity = size;
  });
  return mixed ? 0 : arity;
}

}  // namespace

// `a, b = <value>` in a branch: a tuple display of as many values, each assigned in turn
// (none reads a name the statement binds, so in turn is at once), or a call whose callee
// fixes how many tensors it gives, computed once into a temp whose elements are read
// (`__gm_t0[0]`). Unpacking a call leaves no statement torch.cond's branches could hold.
bool Planner::build_unpacking(const ast::Tuple& names, const ast::expr& value, Tree& tree) {
  std::vector<std::string_view> targets;
  for (const ast::expr* element : names.elts) {
    const auto* name = ast::as<ast::Name>(element);
    if (name == nullptr || contains(targets, name->id))
      return fail(Reason::UnpackingForm, "unpacking into a target that is not distinct names");
    targets.push_back(name->id);
  }
  if (const auto* display = ast::as<ast::Tuple>(&value)) {
    if (display->elts.size != targets.size())
      return fail(Reason::UnpackingForm, "unpacking a tuple display of another length");
    for (const ast::Name* read : ast::loads(&value))
      if (contains(targets, read->id))
        return fail(Reason::UnpackingForm, "unpacking values that read the names it binds");
    for (size_t i = 0; i < targets.size(); ++i)
      if (!add_assignment(targets[i], *display->elts[i], tree)) return false;
    return true;
  }
  const auto* call = ast::as<ast::Call>(&value);
  // torch's own callee (a tensor's method, checked at run time where assumed): what the
  // name promises is what it gives; or a helper of the module whose every return is a tuple
  // display of as many values (torch.cond's only: its trace checks what it gives)
  sema::Callee callee = call ? analysis_.resolve_call(*call) : sema::Callee{};
  bool torch_own = callee.kind == sema::CalleeKind::TorchFunction ||
                   callee.kind == sema::CalleeKind::TensorMethod;
  bool helper = callee.kind == sema::CalleeKind::LocalFunction &&
                returned_tuple_arity(callee) == targets.size();
  if (call == nullptr || !(helper || (torch_own && fixed_tuple_arity(*call) == targets.size())))
    return fail(Reason::UnpackingForm,
                "unpacking a value other than a tuple display, a call of a fixed number of "
                "tensors (`torch.aminmax`, `sort`, `topk`, ...) or a helper returning a tuple "
                "display");
  std::optional<std::string> text = value_text(value, tree);
  if (!text) return false;
  if (helper && !expensive)
    return fail(Reason::UnpackingForm, "unpacking a helper's result that torch.cond cannot take");
  std::string unpacking;
  for (std::string_view var : targets)
    unpacking += (unpacking.empty() ? "" : ", ") + std::string(var);
  tree.cond.body.push_back(unpacking + " = " +
                           parenthesize_multiline(std::string(node_text(context_, value))));
  note_reads(value, tree);
  int whole = temps++;
  tree.assigns.push_back({std::string_view(), whole, *text});
  std::string held = kTempOpen + std::to_string(whole) + kTempClose;
  for (size_t i = 0; i < targets.size(); ++i) {
    std::string_view var = targets[i];
    int temp = temps++;
    tree.assigns.push_back({var, temp, held + "[" + std::to_string(i) + "]"});
    tree.env[var] = temp;
    std::erase(tree.numeric, std::string(var));
    if (speculation != nullptr && !contains(tree.derived, var)) tree.derived.push_back(var);
    if (!contains(tree.assigned, var)) tree.assigned.push_back(var);
    // an element of a fresh result; a helper's may be an operand or a view of one
    tree.alias[var] = helper;
    tree.shares[var] = helper;
  }
  return true;
}

// Whether `s` reads no attribute its path stored before it (`self.x_min` after `self.x_min =
// ...`): the rewrite computes every value before it stores, so such a read would see the
// value from before the if. Past a store on `base`, `base` may be read only through other
// attributes (no call of its methods, no passing it on); fails otherwise.
bool Planner::reads_stored_attribute(const ast::stmt& s, const Tree& tree) {
  std::set<std::string_view> bases;
  for (const auto& [var, temp] : tree.env)
    if (is_attribute_var(var)) bases.insert(var.substr(0, var.find('.')));
  if (bases.empty()) return true;
  std::string_view offending;
  size_t loads = 0, through_attributes = 0;
  ast::walk(&s, [&](const ast::Node* n) {
    if (const auto* name = ast::as<ast::Name>(n); name && bases.count(name->id) != 0) ++loads;
    const auto* attribute = ast::as<ast::Attribute>(n);
    const auto* base = attribute ? ast::as<ast::Name>(attribute->value) : nullptr;
    if (base == nullptr || bases.count(base->id) == 0) return true;
    ++through_attributes;
    if (tree.env.count(node_text(context_, *attribute)) != 0)
      offending = node_text(context_, *attribute);
    return true;
  });
  if (!offending.empty())
    return fail(Reason::MutatesState, "a branch reads `" + std::string(offending) +
                                          "` after storing it (the rewrite stores last)");
  if (loads != through_attributes)
    return fail(Reason::MutatesState,
                "a branch uses an object otherwise than through its attributes after storing "
                "one of them (the rewrite stores last)");
  return true;
}

// `flag` of `flag == <literal>` (`!=`, `is`, `is not`; a number, True, False or None):
// on a bool, int, float or None (runtime.python_flags) such a comparison cannot raise
// either. Any other expression as it is.
static const ast::expr* compared_flag(const ast::expr& e) {
  const auto* compare = ast::as<ast::Compare>(&e);
  if (compare == nullptr || compare->ops.size != 1) return &e;
  using Op = ast::CmpOpKind;
  Op op = compare->ops[0];
  if (op != Op::Eq && op != Op::NotEq && op != Op::Is && op != Op::IsNot) return &e;
  return is_python_constant(*compare->comparators[0]) ? compare->left : &e;
}

// `flag` of `flag < <number>` (`<=`, `>`, `>=`): on an int or float (runtime.python_numbers)
// such a comparison cannot raise; None or a string would. Else null.
static const ast::expr* ordered_number_flag(const ast::expr& e) {
  const auto* compare = ast::as<ast::Compare>(&e);
  if (compare == nullptr || compare->ops.size != 1) return nullptr;
  using Op = ast::CmpOpKind;
  Op op = compare->ops[0];
  if (op != Op::Lt && op != Op::LtE && op != Op::Gt && op != Op::GtE) return nullptr;
  if (number_literal(compare->comparators[0]) == nullptr) return nullptr;
  const ast::expr* flag = compare->left;
  return ast::is<ast::Name>(flag) || ast::is<ast::Attribute>(flag) ? flag : nullptr;
}

// Whether `test` is made of flags (names and attributes, alone or compared with a literal,
// under and/or/not) that only a speculation takes for tensors: read as Python flags
// instead (checked at run time by runtime.python_flags), as `elif self.mode == -1:`
// usually is. A test the text shows data-dependent stays one.
bool Planner::assumed_flags(const ast::expr& test) const {
  if (speculation == nullptr) return false;
  for (const ast::expr* leaf : condition_leaves(test)) {
    const ast::expr* flag = compared_flag(*leaf);
    if (!ast::is<ast::Name>(flag) && !ast::is<ast::Attribute>(flag)) return false;
  }
  sema::Speculation* active = analysis_.speculate(nullptr);
  bool shown = analysis_.is_data_dependent(test);
  analysis_.speculate(active);
  return !shown;
}

// An if in a branch: a static one computed on both sides (tail duplication), else a
// data-dependent one ending the branch, a split of the tree.
bool Planner::build_nested_if(const ast::If& n, bool last, Tree& tree) {
  if (static_ifs && (!analysis_.is_data_dependent(*n.test) || assumed_flags(*n.test)))
    return build_static_if(n, tree);
  if (!last)
    return fail(Reason::UnsupportedStatement,
                "a nested if followed by more statements in a branch");
  if (!analysis_.is_data_dependent(*n.test))
    return fail(Reason::UnsupportedStatement, "a static if nested in a tensor branch");
  if (auto* op = ast::as<ast::BoolOp>(n.test); op && op->op == ast::BoolOpKind::And) {
    std::vector<const ast::expr*> operands(op->values.begin(), op->values.end());
    return build_split(operands, n.body, n.orelse, tree);
  }
  return build_split({n.test}, n.body, n.orelse, tree);
}

// A print, logging or warnings.warn statement in a branch: recorded with the branch's
// condition ([Defer]'s defer_when), replayed only if it held, where the branch is predicated;
// recorded as [Defer] records it on the original path (runtime.defer: eagerly it calls
// at once, after what is pending). Its arguments are evaluated whatever the condition, so
// they must not read what the branch assigned (both forms read them as written).
bool Planner::add_deferred_call(const ast::Expr& statement, Tree& tree) {
  const auto* call = ast::as<ast::Call>(statement.value);
  std::optional<sema::BreakKind> kind = call ? deferrable_kind(context_, *call) : std::nullopt;
  if (!kind)
    return fail(Reason::UnsupportedStatement,
                "expression statement in a branch (a side effect): `" +
                    short_text(node_text(context_, statement)) + "`");
  for (const ast::Name* name : ast::loads(call))
    if (tree.env.count(name->id) != 0)
      return fail(Reason::Other, "a call the branch makes reads `" + std::string(name->id) +
                                     "`, which the branch assigns");
  std::vector<const ast::expr*> arguments(call->args.begin(), call->args.end());
  for (const ast::keyword* keyword : call->keywords) arguments.push_back(keyword->value);
  for (const ast::expr* argument : arguments)
    if (!recordable_argument(*argument))
      return fail(Reason::NotPure, "an argument of `" +
                                       short_text(node_text(context_, *call->func)) +
                                       "` in a branch is not pure");
  sema::BreakTag tag{*kind, &statement, call, analysis_.function_of(call), {}, false};
  std::vector<const ast::Node*> converted;
  std::optional<std::string> recorded = deferred_text(tag, kPathCondition, &converted);
  std::optional<std::string> plain = recorded ? deferred_text(tag, {}) : std::nullopt;
  if (!plain) return false;
  // a `t.item()` argument the record does not convert would read the scalar in the graph
  for (const ast::expr* argument : arguments)
    if (item_receiver(argument) != nullptr && !contains(converted, argument))
      return fail(Reason::UsesItem, "an argument of `" +
                                        short_text(node_text(context_, *call->func)) +
                                        "` in a branch reads a scalar its record keeps (GM106)");
  tree.deferred.push_back(
      {call, *recorded, *plain, indentation_of(context_, statement), std::move(converted)});
  return true;
}

// An argument a recorded call evaluates whatever the condition: pure, or an f-string of
// pure values (a `t.item()` field is converted at the replay, only if the condition held).
bool Planner::recordable_argument(const ast::expr& argument) const {
  const ast::expr* value = &argument;
  if (const auto* starred = ast::as<ast::Starred>(value)) value = starred->value;
  const auto* joined = ast::as<ast::JoinedStr>(value);
  // `t.item()`, like such a field, records `t`, converted when the call replays
  if (joined == nullptr) {
    const ast::expr* item = item_receiver(value);
    return analysis_.is_pure(item != nullptr ? *item : *value);
  }
  for (const ast::expr* part : joined->values) {
    const auto* field = ast::as<ast::FormattedValue>(part);
    if (field == nullptr) continue;
    const ast::expr* shown =
        item_receiver(field->value) ? item_receiver(field->value) : field->value;
    if (!analysis_.is_pure(*shown) ||
        (field->format_spec != nullptr && !recordable_argument(*field->format_spec)))
      return false;
  }
  return true;
}

// The text of the call `tag` names as [Defer] records it (with `condition`, see defer_call).
std::optional<std::string> Planner::deferred_text(const sema::BreakTag& tag,
                                                  std::string_view condition,
                                                  std::vector<const ast::Node*>* converted) {
  Outcome deferred = defer_call(tag, context_, condition);
  if (converted != nullptr) *converted = deferred.absorbed;
  if (!deferred.fixed) {
    fail(reasons::quoting(Reason::UnsupportedStatement, "a call in a branch cannot be deferred: ",
                          {deferred.reason_id, deferred.reason}));
    return std::nullopt;
  }
  const ast::Node& call = *tag.site;
  std::vector<TextEdit> edits = deferred.edits;
  for (TextEdit& edit : edits) {
    edit.begin -= call.begin;
    edit.end -= call.begin;
  }
  std::string error;
  std::string_view written = node_text(context_, call);
  if (!normalize_edits(edits, static_cast<uint32_t>(written.size()), &error)) {
    fail(Reason::Internal, "internal: a deferred call's edits (" + error + ")");
    return std::nullopt;
  }
  return apply_edits(written, edits);
}

// A side of a static if: the state of `tree` before it.
std::unique_ptr<Tree> Planner::static_side(const Tree& tree) {
  auto side = std::make_unique<Tree>();
  side->env = tree.env;
  side->numeric = tree.numeric;
  side->derived = tree.derived;
  side->free_reads = tree.free_reads;
  side->path = tree.path;
  return side;
}

// Whether `var`, kept by a side of the static if `n`, holds a Python number there: known
// as one in `tree`, or (not assigned earlier in the branch) a read of it in `n` is one.
bool Planner::kept_number(const ast::If& n, std::string_view var, Tree& tree) {
  if (std::find(tree.numeric.begin(), tree.numeric.end(), var) != tree.numeric.end()) return true;
  if (tree.env.count(var) != 0) return false;
  for (const ast::Name* name : ast::loads(&n)) {
    if (name->id != var) continue;
    if (speculation != nullptr) focus(tree);
    return analysis_.is_number(*name, facts_of(tree));
  }
  return false;
}

// `if <static test>: ... else: ...` in a branch: both sides' values (pure, so computed
// unconditionally), then `var = <true> if <test> else <false>` for each variable assigned.
bool Planner::build_static_if(const ast::If& n, Tree& tree) {
  if (!check_static_test(n, tree)) return false;
  met_static_if = true;
  std::optional<std::string> test = renamed(*n.test, tree, {});
  if (!test)
    return fail(Reason::UnsupportedStatement,
                "comprehension, lambda or f-string reading a branch variable");
  note_free_reads(*n.test, tree);
  std::unique_ptr<Tree> sides[2] = {static_side(tree), static_side(tree)};
  size_t masked = masked_reads.size();
  if (!build_body(n.body, *sides[0]) || !build_body(n.orelse, *sides[1])) return false;
  // a masked read is masked by the tensor conditions only, not by this test
  if (masked_reads.size() != masked)
    return fail(Reason::UnsupportedStatement,
                "a static if in a branch reading by a computed index");
  // a call a side records is recorded (or run) under the test as well
  for (int i = 0; i < 2; ++i)
    for (DeferredCall& call : sides[i]->deferred)
      call.static_tests.insert(call.static_tests.begin(), (i == 0 ? "(" : "not (") + *test + ")");
  std::vector<std::string_view> vars;
  for (auto& side : sides)
    if (!merge_static_side(*side, tree, vars)) return false;
  for (std::string_view var : vars) {
    // a stored attribute is stored once whichever side holds: by both sides
    if (!is_attribute_var(var)) continue;
    if (sides[0]->env.count(var) == 0 || sides[1]->env.count(var) == 0)
      return fail(Reason::MutatesState,
                  "a static if in a branch stores `" + std::string(var) + "` on one side only");
    tree.shares[var] = sides[0]->shares[var] || sides[1]->shares[var];
  }
  for (std::string_view var : vars) select_static_value(n, var, *test, sides, tree);
  return true;
}

// The test of a static if in a branch. It is evaluated where the original may not evaluate
// it (the tensor condition held): a name or attribute whose truth test cannot raise,
// checked at run time (runtime.python_flags: a bool, int, float or None), or a query of a
// torch mode (`torch.is_grad_enabled()`, sema::is_mode_query).
bool Planner::check_static_test(const ast::If& n, const Tree& tree) {
  for (const ast::expr* leaf : condition_leaves(*n.test)) {
    const auto* call = ast::as<ast::Call>(leaf);
    if (call != nullptr && sema::is_mode_query(analysis_.resolve_call(*call), *call)) continue;
    const ast::expr* number = ordered_number_flag(*leaf);
    leaf = number != nullptr ? number : compared_flag(*leaf);
    if (!ast::is<ast::Name>(leaf) && !ast::is<ast::Attribute>(leaf))
      return fail(Reason::Other, "the static test `" + short_text(node_text(context_, *n.test)) +
                                     "` is not a flag (a name, an attribute, one compared with "
                                     "`==`/`!=`/`is`/`is not` to a literal or ordered against "
                                     "a number, or a query of a torch mode; both sides "
                                     "evaluate it)");
    // the check before the statement reads the value before the branch
    for (const ast::Name* name : ast::loads(leaf))
      if (tree.env.count(name->id) != 0)
        return fail(Reason::Other,
                    "the static test reads `" + std::string(name->id) +
                        "`, assigned earlier in the branch (the run-time check cannot see it)");
    // a flag compared with a literal: on the values python_flags admits, pure as the flag
    if (!pure_as_written(*leaf))
      return fail(Reason::NotPure,
                  "the static test `" + short_text(node_text(context_, *n.test)) + "` is not pure");
    std::string flag(node_text(context_, *leaf));
    std::vector<std::string>& checks = number != nullptr ? number_flag_checks : flag_checks;
    if (!contains(checks, flag)) checks.push_back(flag);
  }
  return true;
}

// One side of a static if into `tree`: its assignments and free reads, and in `vars` the
// variables it changed.
bool Planner::merge_static_side(Tree& side, Tree& tree, std::vector<std::string_view>& vars) {
  if (side.is_split() || side.returned || side.raises())
    return fail(Reason::UnsupportedStatement,
                "a static if in a branch holding a return, a raise or a tensor if");
  for (DeferredCall& call : side.deferred) tree.deferred.push_back(std::move(call));
  for (auto& a : side.assigns) tree.assigns.push_back(std::move(a));
  for (std::string_view name : side.free_reads) tree.free_reads.push_back(name);
  for (const auto& [var, temp] : side.env) {
    auto before = tree.env.find(var);
    bool changed = before == tree.env.end() || before->second != temp;
    if (changed && std::find(vars.begin(), vars.end(), var) == vars.end()) vars.push_back(var);
  }
  return true;
}

// `var = <true side's> if <test> else <false side's>` after a static if, and what `var`
// holds then: a Python number where both sides leave one, a tensor where both do.
void Planner::select_static_value(const ast::If& n, std::string_view var, const std::string& test,
                                  const std::unique_ptr<Tree> (&sides)[2], Tree& tree) {
  auto placeholder = [](int temp) { return kTempOpen + std::to_string(temp) + kTempClose; };
  std::string value[2];
  bool number = true;
  for (int i = 0; i < 2; ++i) {
    const Tree& side = *sides[i];
    if (auto it = side.env.find(var); it != side.env.end()) {
      value[i] = placeholder(it->second);
      auto& numeric = side.numeric;
      number = number && (std::find(numeric.begin(), numeric.end(), var) != numeric.end());
    } else {  // kept: the value before the if (read, so it must be bound)
      value[i] = std::string(var);
      tree.free_reads.push_back(var);
      number = number && kept_number(n, var, tree);
    }
  }
  int temp = temps++;
  tree.assigns.push_back(
      {var, temp, value[0] + " if " + parenthesize_multiline(test) + " else " + value[1]});
  tree.env[var] = temp;
  auto numeric = std::find(tree.numeric.begin(), tree.numeric.end(), var);
  if (numeric != tree.numeric.end()) tree.numeric.erase(numeric);
  if (number) tree.numeric.emplace_back(var);
  auto derived = std::find(tree.derived.begin(), tree.derived.end(), var);
  if (derived != tree.derived.end()) tree.derived.erase(derived);
  bool tensors = true;
  for (auto& side : sides)
    tensors = tensors &&
              std::find(side->derived.begin(), side->derived.end(), var) != side->derived.end();
  if (tensors) tree.derived.push_back(var);
}

// Checks a branch value; false with `error` when it cannot be evaluated unconditionally.
// `masked`: the subscripts by a computed index it reads ahead of the branch, masked.
bool Planner::check_value(const ast::expr& value, const Tree& tree,
                          std::vector<const ast::Subscript*>& masked) {
  if (contains_kind(&value, {Kind::Yield, Kind::YieldFrom, Kind::Await}))
    return fail(Reason::UnsupportedStatement, "branch contains yield/await");
  if (contains_kind(&value, {Kind::Lambda}))
    return fail(Reason::UnsupportedStatement, "branch contains a lambda");
  if (contains_kind(&value, {Kind::NamedExpr}))
    return fail(Reason::UnsupportedStatement, "assignment expression (:=) in a branch");
  if (uses_scalar(&value))
    return fail(Reason::UsesItem, "branch value uses .item()/.tolist() (GM106)");
  // a helper torch.cond can trace whole runs only on the side taken; another pure one (a
  // validation, static ifs) on both
  if (calls_expensive(value) && cond_eligible(value)) {
    expensive = true;
    return true;
  }
  if (analysis_.is_pure(value, facts_of(tree))) {
    pure_helper |= calls_expensive(value);
    return true;
  }
  // a helper only Dynamo's trace can show traceable (a static if, a validation), or a torch
  // function that may raise on data (`F.cross_entropy` on a target out of range): torch.cond,
  // which runs the side taken only, behind runtime.cond_on, where nothing else would
  // predicate the branch
  if (traced_helpers && cond_eligible_when_traced(value)) {
    expensive = true;
    return true;
  }
  sema::PurityFacts facts = facts_of(tree);
  if (!find_masked(value, tree, facts)) return false;
  if (!facts.masked_subscripts.empty() && analysis_.is_pure(value, facts)) {
    masked = facts.masked_subscripts;
    if (first_masked == nullptr) first_masked = masked.front();
    return true;
  }
  if (const ast::Subscript* index = computed_index(&value))
    return fail(computed_index_reason(context_, *index));
  return fail(Reason::NotPure, "branch value `" + short_text(node_text(context_, value)) +
                                   "` is not pure (side effects or may raise)");
}
// The value's text with names assigned earlier in the branch replaced by their temps and
// the `masked` subscripts by their masked reads.
std::optional<std::string> Planner::renamed(const ast::expr& value, const Tree& tree,
                                            const std::vector<const ast::Subscript*>& masked) {
  std::vector<std::pair<const ast::expr*, int>> hits;  // a name and its temp; -1: masked
  bool scoped = false;
  auto visit = [&](const ast::Node* n) {
    switch (n->kind) {
      case Kind::ListComp:
      case Kind::SetComp:
      case Kind::DictComp:
      case Kind::GeneratorExp:
      case Kind::Lambda:
      case Kind::JoinedStr:
        scoped = true;
        break;
      default:
        break;
    }
    if (std::find(masked.begin(), masked.end(), n) != masked.end()) {
      hits.push_back({static_cast<const ast::expr*>(n), -1});
      return false;
    }
    if (auto* name = ast::as<ast::Name>(n)) {
      auto it = tree.env.find(name->id);
      if (it != tree.env.end()) hits.push_back({name, it->second});
    }
    return true;
  };
  ast::walk(&value, visit);
  if (!hits.empty() && scoped) return std::nullopt;
  std::string_view all = context_.source.text();
  std::string out;
  uint32_t at = value.begin;
  for (const auto& [hit, temp] : hits) {
    out += all.substr(at, hit->begin - at);
    if (temp < 0) {
      out += masked_read(*ast::as<ast::Subscript>(hit), tree);
    } else {
      out += kTempOpen + std::to_string(temp) + kTempClose;
    }
    at = hit->end;
  }
  out += all.substr(at, value.end - at);
  return parenthesize_multiline(out);
}

// The names `value` reads that no earlier statement on the branch's path assigned.
void Planner::note_free_reads(const ast::expr& value, Tree& tree) {
  for (const ast::Name* name : ast::loads(&value))
    if (tree.env.count(name->id) == 0) tree.free_reads.push_back(name->id);
}

void Planner::note_reads(const ast::expr& value, Tree& tree) {
  for (const ast::Name* name : ast::loads(&value)) {
    bool seen =
        std::find(tree.assigned.begin(), tree.assigned.end(), name->id) != tree.assigned.end();
    for (const auto& r : tree.reads) seen = seen || r.first == name->id;
    if (!seen) tree.reads.push_back({name->id, name});
  }
}

sema::PurityFacts Planner::facts_of(const Tree& tree) const {
  sema::PurityFacts facts = prefix_facts;
  facts.numeric_names = tree.numeric;
  return facts;
}

bool Planner::add_assignment(std::string_view var, const ast::expr& value, Tree& tree) {
  std::optional<std::string> text = value_text(value, tree);
  if (!text) return false;
  if (speculation != nullptr) {
    auto derived = std::find(tree.derived.begin(), tree.derived.end(), var);
    bool tensor = analysis_.is_tensor(value);
    if (tensor && derived == tree.derived.end()) tree.derived.push_back(var);
    if (!tensor && derived != tree.derived.end()) tree.derived.erase(derived);
  }
  auto numeric = std::find(tree.numeric.begin(), tree.numeric.end(), var);
  if (analysis_.is_number(value, facts_of(tree))) {
    if (numeric == tree.numeric.end()) tree.numeric.emplace_back(var);
  } else if (numeric != tree.numeric.end()) {
    tree.numeric.erase(numeric);
  }
  int temp = temps++;
  tree.assigns.push_back({var, temp, *text, is_python_constant(value), gradient_safe(value, tree)});
  tree.env[var] = temp;
  note_reads(value, tree);
  if (std::find(tree.assigned.begin(), tree.assigned.end(), var) == tree.assigned.end())
    tree.assigned.push_back(var);
  tree.alias[var] = may_alias_input(context_, value);
  tree.shares[var] = sema::may_alias(context_.analysis, value);
  tree.stored_name[var] = is_attribute_var(var) ? ast::as<ast::Name>(&value) : nullptr;
  tree.cond.body.push_back(std::string(var) + " = " +
                           parenthesize_multiline(std::string(node_text(context_, value))));
  return true;
}

// A branch value's text with earlier branch values as their temps, once it is checked
// (check_value); its free reads noted. Fails (nullopt) otherwise.
std::optional<std::string> Planner::value_text(const ast::expr& value, Tree& tree) {
  if (speculation != nullptr) focus(tree);
  std::vector<const ast::Subscript*> masked;
  if (!check_value(value, tree, masked)) return std::nullopt;
  std::optional<std::string> text = renamed(value, tree, masked);
  if (!text) {
    fail(Reason::UnsupportedStatement,
         "comprehension, lambda or f-string reading a branch variable");
    return std::nullopt;
  }
  note_free_reads(value, tree);
  return text;
}

bool Planner::add_return(const ast::expr& value, Tree& tree) {
  std::optional<std::string> text = value_text(value, tree);
  if (!text) return false;
  int temp = temps++;
  tree.assigns.push_back(
      {std::string_view(), temp, *text, is_python_constant(value), gradient_safe(value, tree)});
  tree.returned = temp;
  tree.returned_arity = tuple_arity(value);
  note_reads(value, tree);
  tree.cond.returns = {unaliased(context_, value)};
  return true;
}

// `raise` ending a branch: a leaf that gives no value and, predicated, raises where its
// path's conditions hold ([Trap]'s guard). Its message is built only then, as the original
// builds it, and before any merged variable is assigned: it may not read what the branch
// assigned.
bool Planner::add_raise(const ast::Raise& raise, bool last, Tree& tree) {
  if (!last) return fail(Reason::UnsupportedStatement, "statements after raise in a branch");
  if (!context_.options.rewrites.has(RewriteKind::Trap))
    return fail(Reason::BranchRaises,
                "a branch raises, and the [trap] rewrite that guards it is disabled");
  if (speculation != nullptr) focus(tree);
  GuardRaise form = guard_raise(context_, raise, raise, {});
  if (!form.problem.empty())
    return fail(reasons::quoting(
        Reason::BranchRaises,
        "a branch raises, and its raise has no guard form: ", {form.reason, form.problem}));
  std::vector<std::string_view> message_reads;
  for (const ast::Name* name : ast::loads(&raise)) {
    if (tree.env.count(name->id) != 0)
      return fail(Reason::BranchRaises, "a branch raises with a message reading `" +
                                            std::string(name->id) + "`, which the branch assigns");
    message_reads.push_back(name->id);
  }
  std::string written(node_text(context_, raise));
  tree.raise = RaisingArm{written, indentation_of(context_, raise), form.function, form.arguments,
                          std::move(message_reads)};
  return true;
}

// ---------------------------------------------------------------------------------------
// The tree's leaves and merge order.

bool only_raises(const Tree& tree) {
  if (!tree.is_split()) return tree.raises();
  return only_raises(*tree.on_true) && only_raises(*tree.on_false);
}

void leaves_of(Tree& tree, std::vector<Tree*>& out) {
  if (tree.is_split()) {
    leaves_of(*tree.on_true, out);
    leaves_of(*tree.on_false, out);
  } else {
    out.push_back(&tree);
  }
}

void merge_order(const Tree& tree, std::vector<std::string_view>& out) {
  if (tree.raises()) return;  // what it assigns is never read
  for (const auto& a : tree.assigns)
    if (!a.var.empty() && std::find(out.begin(), out.end(), a.var) == out.end())
      out.push_back(a.var);
  if (tree.is_split()) {
    merge_order(*tree.on_true, out);
    merge_order(*tree.on_false, out);
  }
}

}  // namespace graphmend::rewrite::where_detail

namespace graphmend::rewrite::where_detail {

// Whether every local derivative of `value` is finite wherever it is defined, so that the
// zero gradient torch.where sends into it, unselected, stays zero: names (a value from
// before the if, or a branch temp that is such a value), attributes, number literals,
// `torch.finfo(...)`/`iinfo` fields, unary `-`/`+`, `+`/`-` of such values, a product or
// quotient by a number literal, and the calls of torch_facts' BoundedGradient with such
// arguments (clamp, relu, sigmoid, tanh, views, casts, where, cat...). An exp, a log, a
// square root, a product of two tensors (0 times an infinite factor is NaN) are not.
bool Planner::gradient_safe(const ast::expr& value, const Tree& tree) const {
  switch (value.kind) {
    case Kind::Constant:
    case Kind::Attribute:
      return true;
    case Kind::Name: {
      auto it = tree.env.find(static_cast<const ast::Name&>(value).id);
      if (it == tree.env.end()) return true;  // its value before the if: the identity
      const Assignment* assigned = tree.assignment(it->second);
      return assigned != nullptr && assigned->gradient_safe;
    }
    case Kind::UnaryOp: {
      auto& unary = static_cast<const ast::UnaryOp&>(value);
      return (unary.op == ast::UnaryOpKind::USub || unary.op == ast::UnaryOpKind::UAdd) &&
             gradient_safe(*unary.operand, tree);
    }
    case Kind::BinOp: {
      auto& binary = static_cast<const ast::BinOp&>(value);
      auto number = [](const ast::expr* e) { return number_literal(e) != nullptr; };
      switch (binary.op) {
        case ast::OperatorKind::Add:
        case ast::OperatorKind::Sub:
          return gradient_safe(*binary.left, tree) && gradient_safe(*binary.right, tree);
        case ast::OperatorKind::Mult:
          return (number(binary.left) && gradient_safe(*binary.right, tree)) ||
                 (number(binary.right) && gradient_safe(*binary.left, tree));
        case ast::OperatorKind::Div:
          return number(binary.right) && gradient_safe(*binary.left, tree);
        default:
          return false;
      }
    }
    case Kind::Call: {
      auto& call = static_cast<const ast::Call&>(value);
      const auto* method = ast::as<ast::Attribute>(call.func);
      if (method == nullptr) return false;
      sema::Callee callee = analysis_.resolve_call(call);
      std::string_view name = method->attr;
      bool info = callee.qualified_name == "torch.finfo" || callee.qualified_name == "torch.iinfo";
      if (info) return true;  // no tensor
      bool function = callee.kind == sema::CalleeKind::TorchFunction;
      if (!function && !gradient_safe(*method->value, tree)) return false;
      if (!sema::has_fact(sema::TorchFact::BoundedGradient, name)) return false;
      for (const ast::expr* arg : call.args)
        if (ast::is<ast::Starred>(arg) || !gradient_safe(*arg, tree)) return false;
      for (const ast::keyword* keyword : call.keywords)
        if (keyword->arg.empty() || !gradient_safe(*keyword->value, tree)) return false;
      return true;
    }
    case Kind::List:
    case Kind::Tuple: {
      const auto& elements = value.kind == Kind::List ? static_cast<const ast::List&>(value).elts
                                                      : static_cast<const ast::Tuple&>(value).elts;
      for (const ast::expr* element : elements)
        if (!gradient_safe(*element, tree)) return false;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace graphmend::rewrite::where_detail
