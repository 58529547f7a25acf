// [Where] tail duplication: a branch assigning Python numbers planned together with the
// statements after it up to the function's return, which each side computes with its own
// values (plan_tail; the Planner's checks of the tail on each side).
#include <algorithm>
#include <set>

#include "ast/names.h"
#include "ast/walk.h"
#include "base/contains.h"
#include "rewrite/where/planner.h"

namespace graphmend::rewrite::where_detail {

using ast::Kind;

// ---------------------------------------------------------------------------------------
// The Planner's checks of the tail on each side.

namespace {}  // namespace

// Maximal subexpressions of `e` that read no name in `assigned` and are not pure as
// written, in evaluation order; only those Python evaluates unconditionally.
void Planner::hoist(const ast::expr* e, const std::set<std::string_view>& assigned) {
  // what binds names or defers evaluation stays where it is (and is declined there)
  if (e == nullptr ||
      contains_kind(e, {Kind::NamedExpr, Kind::Yield, Kind::YieldFrom, Kind::Await, Kind::Lambda,
                        Kind::ListComp, Kind::SetComp, Kind::DictComp, Kind::GeneratorExp}))
    return;
  bool reads = false;
  for (const ast::Name* name : ast::loads(e)) reads = reads || assigned.count(name->id) != 0;
  if (!reads && !ast::is<ast::Starred>(e) && !ast::is<ast::Slice>(e)) {
    if (!ast::is<ast::Name>(e) && !ast::is<ast::Constant>(e) && !pure_as_written(*e))
      hoisted.push_back(e);
    return;
  }
  switch (e->kind) {
    case Kind::BinOp: {
      auto& n = static_cast<const ast::BinOp&>(*e);
      hoist(n.left, assigned);
      hoist(n.right, assigned);
      return;
    }
    case Kind::UnaryOp:
      return hoist(static_cast<const ast::UnaryOp&>(*e).operand, assigned);
    case Kind::Compare: {  // later links of a chain are evaluated only if earlier ones hold
      auto& n = static_cast<const ast::Compare&>(*e);
      hoist(n.left, assigned);
      hoist(n.comparators[0], assigned);
      return;
    }
    case Kind::Call: {
      auto& n = static_cast<const ast::Call&>(*e);
      hoist(n.func, assigned);
      for (auto* arg : n.args) hoist(arg, assigned);
      for (auto* kw : n.keywords) hoist(kw->value, assigned);
      return;
    }
    case Kind::Attribute:
      return hoist(static_cast<const ast::Attribute&>(*e).value, assigned);
    case Kind::Subscript: {
      auto& n = static_cast<const ast::Subscript&>(*e);
      hoist(n.value, assigned);
      hoist(n.slice, assigned);
      return;
    }
    case Kind::Tuple:
      for (auto* elt : static_cast<const ast::Tuple&>(*e).elts) hoist(elt, assigned);
      return;
    case Kind::Starred:
      return hoist(static_cast<const ast::Starred&>(*e).value, assigned);
    case Kind::Slice: {
      auto& n = static_cast<const ast::Slice&>(*e);
      hoist(n.lower, assigned);
      hoist(n.upper, assigned);
      hoist(n.step, assigned);
      return;
    }
    default:
      return;
  }
}

// Checks the tail statements `body[from..]` on one side; false with `error` when a side
// cannot compute them unconditionally.
bool Planner::side_block(const ast::Seq<ast::stmt*>& body, uint32_t from, Side& side, int& count) {
  for (uint32_t i = from; i < body.size; ++i)
    if (!side_statement(*body[i], side, count)) return false;
  return true;
}

void Planner::focus_side(const Side& side) {
  if (speculation == nullptr) return;
  speculation->local = side.local;
  speculation->derived = side.derived;
}

sema::PurityFacts Planner::side_facts(const Side& side) const {
  sema::PurityFacts facts = prefix_facts;
  facts.numeric_names = side.numeric;
  facts.opaque = hoisted;
  return facts;
}

bool Planner::side_value(const ast::expr& value, const Side& side) {
  if (contains_kind(&value,
                    {Kind::Yield, Kind::YieldFrom, Kind::Await, Kind::Lambda, Kind::NamedExpr}))
    return fail(Reason::Other, "the tail holds yield, await, a lambda or :=");
  if (uses_scalar(&value)) return fail(Reason::UsesItem, "the tail uses .item()/.tolist() (GM106)");
  focus_side(side);
  if (analysis_.is_pure(value, side_facts(side))) return true;
  if (calls_expensive(value))
    return fail(Reason::Other, "the tail calls a submodule or function in `" +
                                   short_text(node_text(context_, value)) +
                                   "`: both sides would run it");
  return fail(Reason::NotPure, "tail value `" + short_text(node_text(context_, value)) +
                                   "` is not pure (both sides compute it)");
}

void Planner::side_assign(std::string_view var, const ast::expr& value, Side& side) {
  focus_side(side);
  bool number = analysis_.is_number(value, side_facts(side));
  bool tensor = analysis_.is_tensor(value);
  auto drop = [&](auto& list) {
    list.erase(std::remove(list.begin(), list.end(), var), list.end());
  };
  drop(side.derived);
  drop(side.numeric);
  drop(side.constants);
  if (is_python_constant(value)) side.constants.push_back(var);
  if (std::find(side.local.begin(), side.local.end(), var) == side.local.end())
    side.local.push_back(var);
  if (tensor) side.derived.push_back(var);
  if (number) side.numeric.emplace_back(var);
}

// A test both sides evaluate: Python numbers compared (static on each side), or a pure
// test that is not data-dependent and reads nothing a side assigns.
bool Planner::side_test(const ast::expr& test, const Side& side) {
  focus_side(side);
  sema::PurityFacts facts = side_facts(side);
  bool numbers = true;
  for (const ast::expr* leaf : condition_leaves(test)) {
    const auto* compare = ast::as<ast::Compare>(leaf);
    numbers = numbers && compare != nullptr && analysis_.is_number(*compare->left, facts) &&
              analysis_.is_pure(*leaf, facts);
    for (const ast::expr* x : compare != nullptr ? compare->comparators : ast::Seq<ast::expr*>{})
      numbers = numbers && analysis_.is_number(*x, facts);
  }
  if (numbers) return true;
  // a literal a side assigns: the nested function is traced with it, a constant there
  for (const ast::Name* name : ast::loads(&test))
    if (contains(side.local, name->id) && !contains(side.constants, name->id)) return false;
  return static_as_written(test);
}

// Whether `test` reads no tensor data as the text shows it (`self.config.do_binarize` is
// not assumed a tensor) and is pure: each side may evaluate it.
bool Planner::static_as_written(const ast::expr& test) const {
  sema::Speculation* active = analysis_.speculate(nullptr);
  bool data = analysis_.is_data_dependent(test);
  analysis_.speculate(active);
  return !data && pure_as_written(test);
}

// Whether the check before the statement sees the value `test` has in the tail: it reads
// nothing the branch or the tail assigns before it.
bool Planner::test_checkable_before(const ast::expr& test, const Side& side) const {
  for (const ast::Name* name : ast::loads(&test))
    if (contains(side.local, name->id)) return false;
  return static_as_written(test);
}

// `if <static test>:` in the tail where one side holds what the tail cannot compute on
// both sides (a method changing a tensor in place under a config flag): the other side only,
// with the test's value checked before the statement, where the original runs otherwise.
bool Planner::side_static_if(const ast::If& n, Side& side, int& count) {
  Side on_true = side, on_false = side;
  Problem error_before = error;
  bool true_ok = side_block(n.body, 0, on_true, count);
  bool false_ok = side_block(n.orelse, 0, on_false, count);
  if (true_ok == false_ok || !test_checkable_before(*n.test, side)) return false;
  std::string check = sema::condition_check(
      *n.test, true_ok, [&](const ast::expr& e) { return std::string(node_text(context_, e)); });
  if (!contains(tail_preconditions, check)) tail_preconditions.push_back(check);
  side = true_ok ? on_true : on_false;
  error = error_before;
  return true;
}

bool Planner::side_statement(const ast::stmt& s, Side& side, int& count) {
  if (++count > kMaxTailStatements)
    return fail(Reason::Other, "the tail after the branch is longer than " +
                                   std::to_string(kMaxTailStatements) +
                                   " statements (both sides compute it)");
  switch (s.kind) {
    case Kind::Pass:
      return true;
    case Kind::Assign:
    case Kind::AnnAssign:
      return side_assignment(s, side);
    case Kind::Return:
      return side_return(s, side);
    case Kind::If:
      return side_if(static_cast<const ast::If&>(s), side, count);
    case Kind::For:
    case Kind::AsyncFor:
    case Kind::While:
      return fail(Reason::Other, "the tail after the branch holds a loop");
    default:
      return fail(Reason::Other,
                  "the tail holds `" + short_text(node_text(context_, s)) +
                      "` (only assignments, ifs and the final return are duplicated)");
  }
}

// `name = value` (or `name: T = value`) in the tail.
bool Planner::side_assignment(const ast::stmt& s, Side& side) {
  const ast::expr* target = nullptr;
  const ast::expr* value = nullptr;
  if (auto* n = ast::as<ast::Assign>(&s); n && n->targets.size == 1) {
    target = n->targets[0];
    value = n->value;
  } else if (auto* a = ast::as<ast::AnnAssign>(&s)) {
    target = a->target;
    value = a->value;
  }
  auto* name = ast::as<ast::Name>(target);
  if (name == nullptr || value == nullptr)
    return fail(Reason::BranchNotStatic,
                "the tail assigns `" + short_text(node_text(context_, s)) +
                    "` (a target that is not one name: a side effect both sides would run)");
  if (!side_value(*value, side)) return false;
  side_assign(name->id, *value, side);
  return true;
}

// The tail's final return: what torch.where selects, so no Python value.
bool Planner::side_return(const ast::stmt& s, const Side& side) {
  if (&s != final_return) return fail(Reason::Other, "the tail returns inside an if");
  const ast::expr& value = *static_cast<const ast::Return&>(s).value;
  std::vector<const ast::expr*> values{&value};
  if (const auto* tuple = ast::as<ast::Tuple>(&value))
    values.assign(tuple->elts.begin(), tuple->elts.end());
  for (const ast::expr* returned : values) {
    const auto* name = ast::as<ast::Name>(returned);
    if (name != nullptr && (contains(side.constants, name->id) || contains(side.numeric, name->id)))
      return fail(Reason::SelectsPythonValue, "the tail returns the Python value `" +
                                                  std::string(name->id) +
                                                  "` (torch.where selects tensors only)");
  }
  return side_value(value, side);
}

// An if in the tail: both of its blocks checked on this side, or (side_static_if) only the
// one a static test takes.
bool Planner::side_if(const ast::If& n, Side& side, int& count) {
  if (!side_test(*n.test, side))
    return fail(Reason::Other, "the tail's test `" + short_text(node_text(context_, *n.test)) +
                                   "` is not a comparison of Python numbers or a pure static test");
  Side on_true = side, on_false = side;
  int before = count;
  if (!side_block(n.body, 0, on_true, count) || !side_block(n.orelse, 0, on_false, count)) {
    Problem why = error;
    count = before;
    if (side_static_if(n, side, count)) return true;
    return fail(why);
  }
  // after the if, a name holds a tensor (a number) when both paths leave one
  auto both = [](const auto& a, const auto& b) {
    std::decay_t<decltype(a)> out;
    for (const auto& x : a)
      if (std::find(b.begin(), b.end(), x) != b.end()) out.push_back(x);
    return out;
  };
  side.derived = both(on_true.derived, on_false.derived);
  side.numeric = both(on_true.numeric, on_false.numeric);
  for (const auto* branch : {&on_true, &on_false})
    for (std::string_view name : branch->local)
      if (std::find(side.local.begin(), side.local.end(), name) == side.local.end())
        side.local.push_back(name);
  return true;
}

}  // namespace graphmend::rewrite::where_detail
