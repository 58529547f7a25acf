// [Where] tail duplication: a branch assigning Python numbers planned together with the
// statements after it up to the function's return, which each side computes with its own
// values (plan_tail; the Planner's checks of the tail on each side).
#include <algorithm>
#include <set>

#include "ast/walk.h"
#include "rewrite/where/planner.h"

namespace graphmend::rewrite::where_detail {

using ast::Kind;

// ---------------------------------------------------------------------------------------
// The Planner's checks of the tail on each side.

namespace {

template <class List, class Item>
bool in(const List& list, const Item& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

// Maximal subexpressions of `e` that read no name in `assigned` and are not pure as
// written, in evaluation order; only those Python evaluates unconditionally.
void Planner::hoist(const ast::expr* e, const std::set<std::string_view>& assigned) {
  // what binds names or defers evaluation stays where it is (and is declined there)
  if (e == nullptr ||
      contains_kind(e, {Kind::NamedExpr, Kind::Yield, Kind::YieldFrom, Kind::Await, Kind::Lambda,
                        Kind::ListComp, Kind::SetComp, Kind::DictComp, Kind::GeneratorExp}))
    return;
  bool reads = false;
  for (const ast::Name* name : loads(e)) reads = reads || assigned.count(name->id) != 0;
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
    return fail("the tail holds yield, await, a lambda or :=");
  if (uses_scalar(&value)) return fail("the tail uses .item()/.tolist() (GM106)");
  focus_side(side);
  if (analysis_.is_pure(value, side_facts(side))) return true;
  if (calls_expensive(value))
    return fail("the tail calls a submodule or function in `" +
                short_text(node_text(context_, value)) + "`: both sides would run it");
  return fail("tail value `" + short_text(node_text(context_, value)) +
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
  for (const ast::Name* name : loads(&test))
    if (in(side.local, name->id) && !in(side.constants, name->id)) return false;
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
  for (const ast::Name* name : loads(&test))
    if (in(side.local, name->id)) return false;
  return static_as_written(test);
}

// `if <static test>:` in the tail where one side holds what the tail cannot compute on
// both sides (a method changing a tensor in place under a config flag): the other side only,
// with the test's value checked before the statement, where the original runs otherwise.
bool Planner::side_static_if(const ast::If& n, Side& side, int& count) {
  Side on_true = side, on_false = side;
  std::string error_before = error;
  bool true_ok = side_block(n.body, 0, on_true, count);
  bool false_ok = side_block(n.orelse, 0, on_false, count);
  if (true_ok == false_ok || !test_checkable_before(*n.test, side)) return false;
  std::string check = sema::condition_check(
      *n.test, true_ok, [&](const ast::expr& e) { return std::string(node_text(context_, e)); });
  if (!in(tail_preconditions, check)) tail_preconditions.push_back(check);
  side = true_ok ? on_true : on_false;
  error = error_before;
  return true;
}

bool Planner::side_statement(const ast::stmt& s, Side& side, int& count) {
  if (++count > kMaxTailStatements)
    return fail("the tail after the branch is longer than " + std::to_string(kMaxTailStatements) +
                " statements (both sides compute it)");
  switch (s.kind) {
    case Kind::Pass:
      return true;
    case Kind::Assign:
    case Kind::AnnAssign: {
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
        return fail("the tail assigns `" + short_text(node_text(context_, s)) +
                    "` (a target that is not one name: a side effect both sides would run)");
      if (!side_value(*value, side)) return false;
      side_assign(name->id, *value, side);
      return true;
    }
    case Kind::Return: {
      if (&s != final_return) return fail("the tail returns inside an if");
      const ast::expr& value = *static_cast<const ast::Return&>(s).value;
      std::vector<const ast::expr*> values{&value};
      if (const auto* tuple = ast::as<ast::Tuple>(&value))
        values.assign(tuple->elts.begin(), tuple->elts.end());
      for (const ast::expr* returned : values) {
        const auto* name = ast::as<ast::Name>(returned);
        if (name != nullptr && (in(side.constants, name->id) || in(side.numeric, name->id)))
          return fail("the tail returns the Python value `" + std::string(name->id) +
                      "` (torch.where selects tensors only)");
      }
      return side_value(value, side);
    }
    case Kind::If: {
      auto& n = static_cast<const ast::If&>(s);
      if (!side_test(*n.test, side))
        return fail("the tail's test `" + short_text(node_text(context_, *n.test)) +
                    "` is not a comparison of Python numbers or a pure static test");
      Side on_true = side, on_false = side;
      int before = count;
      if (!side_block(n.body, 0, on_true, count) || !side_block(n.orelse, 0, on_false, count)) {
        std::string why = error;
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
    case Kind::For:
    case Kind::AsyncFor:
    case Kind::While:
      return fail("the tail after the branch holds a loop");
    default:
      return fail("the tail holds `" + short_text(node_text(context_, s)) +
                  "` (only assignments, ifs and the final return are duplicated)");
  }
}

// ---------------------------------------------------------------------------------------
// Planning the tail as a nested function each side calls.

namespace {

// Whether `var`'s value at the end of `leaf` is a literal (True, False, None, a number).
bool assigns_literal(const Tree& leaf, std::string_view var) {
  auto it = leaf.env.find(var);
  if (it == leaf.env.end()) return false;
  return std::any_of(leaf.assigns.begin(), leaf.assigns.end(), [&](const Assignment& a) {
    return a.temp == it->second && a.python_constant;
  });
}

// Whether the last statement before the one at the end of `path` that binds `var`, in the
// same block, assigns it a Python number (`variance = 0`).
bool number_before(const Context& context, const std::vector<BlockRef>& path,
                   std::string_view var) {
  const BlockRef& here = path.back();
  for (uint32_t i = here.index; i-- > 0;) {
    const ast::stmt* s = (*here.block)[i];
    if (!ast::stores_name(s, var)) continue;
    auto* assign = ast::as<ast::Assign>(s);
    return assign != nullptr && assign->targets.size == 1 &&
           ast::is<ast::Name>(assign->targets[0]) &&
           context.analysis.is_number(*assign->value, sema::PurityFacts{});
  }
  return false;
}

// The text of `node` with each hoisted subexpression in it replaced by its temp.
std::string hoisted_text(const Context& context, const ast::Node& node,
                         const std::vector<const ast::expr*>& hoisted,
                         const std::vector<int>& temps) {
  std::vector<size_t> order(hoisted.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return hoisted[a]->begin < hoisted[b]->begin; });
  std::string_view all = context.source.text();
  std::string out;
  uint32_t at = node.begin;
  for (size_t i : order) {
    const ast::expr* h = hoisted[i];
    if (h->begin < node.begin || h->end > node.end) continue;
    out += all.substr(at, h->begin - at);
    out += kTempOpen + std::to_string(temps[i]) + kTempClose;
    at = h->end;
  }
  out += all.substr(at, node.end - at);
  return out;
}

// The tail's lines as the nested function's body (ifs re-nested, other statements as
// written from their first line).
void tail_lines(const Context& context, const ast::stmt& s, int level,
                const std::vector<const ast::expr*>& hoisted, const std::vector<int>& temps,
                std::vector<std::pair<int, std::string>>& out) {
  if (auto* n = ast::as<ast::If>(&s)) {
    out.push_back(
        {level, "if " + parenthesize_multiline(std::string(node_text(context, *n->test))) + ":"});
    for (auto* inner : n->body) tail_lines(context, *inner, level + 1, hoisted, temps, out);
    if (!n->orelse.empty()) {
      out.push_back({level, "else:"});
      for (auto* inner : n->orelse) tail_lines(context, *inner, level + 1, hoisted, temps, out);
    }
    return;
  }
  out.push_back({level, hoisted_text(context, s, hoisted, temps)});
}

// Function locals the tail reads (outside hoisted subexpressions), first read first.
std::vector<std::string_view> tail_reads(const ast::Seq<ast::stmt*>& block, uint32_t from,
                                         const std::set<std::string_view>& locals,
                                         const std::vector<const ast::expr*>& hoisted) {
  std::vector<std::string_view> out;
  for (uint32_t i = from; i < block.size; ++i) {
    ast::walk(block[i], [&](const ast::Node* n) {
      if (std::find(hoisted.begin(), hoisted.end(), n) != hoisted.end()) return false;
      if (auto* name = ast::as<ast::Name>(n);
          name && name->ctx == ast::ExprContext::Load && locals.count(name->id) != 0 &&
          std::find(out.begin(), out.end(), name->id) == out.end())
        out.push_back(name->id);
      return true;
    });
  }
  return out;
}

// Whether every read of `name` in `body[from..]` comes after an assignment to it on every
// path through those statements (`bound`: whether one has happened so far).
bool binds_before_reads(const ast::Seq<ast::stmt*>& body, uint32_t from, std::string_view name,
                        bool& bound) {
  auto reads = [&](const ast::Node* node) {
    for (const ast::Name* read : loads(node))
      if (read->id == name) return true;
    return false;
  };
  for (uint32_t i = from; i < body.size; ++i) {
    if (auto* n = ast::as<ast::If>(body[i])) {
      if (!bound && reads(n->test)) return false;
      bool on_true = bound, on_false = bound;
      if (!binds_before_reads(n->body, 0, name, on_true) ||
          !binds_before_reads(n->orelse, 0, name, on_false))
        return false;
      bound = on_true && on_false;
      continue;
    }
    if (!bound && reads(body[i])) return false;
    bound = bound || ast::stores_name(body[i], name);
  }
  return true;
}

// A context manager known not to suppress an exception its block raises: torch's grad-mode
// and autocast managers, called (`with torch.no_grad():`).
bool passes_exceptions(const Context& context, const ast::With& with) {
  static const std::set<std::string_view> kManagers = {
      "no_grad",  "enable_grad",  "inference_mode",   "set_grad_enabled",
      "autocast", "amp.autocast", "cpu.amp.autocast", "cuda.amp.autocast"};
  std::string_view torch = context.analysis.torch_name();
  for (const ast::withitem* item : with.items) {
    const auto* call = ast::as<ast::Call>(item->context_expr);
    std::string_view callee = call != nullptr ? node_text(context, *call->func) : "";
    if (torch.empty() || callee.size() <= torch.size() + 1 ||
        callee.substr(0, torch.size()) != torch || callee[torch.size()] != '.' ||
        kManagers.count(callee.substr(torch.size() + 1)) == 0)
      return false;
  }
  return true;
}

// Why the tail cannot become a nested function where the branch stands, or empty. The tail
// returns on every path, so control leaves the branch's block only through its final
// `return` or an exception, and every block around it is left the same way. An enclosing
// `if`/`else` is then never left otherwise. An enclosing `with` runs its exit on either, and
// the nested function, defined and called in the branch's place, runs inside it (no_grad,
// autocast active as in the original). A raising branch's guard raises there too; compiled,
// it raises only at the compile boundary, so a manager that could suppress the exception
// (its exit sees it) is declined: only torch's grad-mode and autocast managers. A `try` would
// see the compiled guard's RuntimeError in its handlers (and Dynamo gives up on a frame that
// breaks inside one); a loop would run the branch on some pass after names bound on earlier
// passes, which the check of what is bound before the branch does not follow: declined.
std::string check_enclosing(const Context& context, const std::vector<BlockRef>& path,
                            bool raises) {
  for (size_t k = path.size(); k-- > 0;) {
    const ast::stmt* owner = path[k].owner;
    if (owner == nullptr) return "the branch is not in a function";
    switch (owner->kind) {
      case Kind::FunctionDef:
      case Kind::AsyncFunctionDef:
        return {};
      case Kind::If:
        continue;
      case Kind::With:
        if (raises && !passes_exceptions(context, static_cast<const ast::With&>(*owner)))
          return "a branch raises inside `with " +
                 short_text(node_text(
                     context, *static_cast<const ast::With&>(*owner).items[0]->context_expr)) +
                 "`, a context manager that may suppress the exception (the compiled guard "
                 "raises only at the compile boundary)";
        continue;
      case Kind::For:
      case Kind::AsyncFor:
      case Kind::While:
        return "the branch is inside a loop";
      case Kind::Try:
      case Kind::TryStar:
        return "the branch is inside a try statement (its handlers would see what the "
               "compiled form raises, not what the original raises)";
      default:
        return "the branch is inside `" + short_text(node_text(context, *owner)) +
               "` (only if, else and with blocks hold a duplicated tail)";
    }
  }
  return "the branch is not in a function";
}

// Tail duplication: a data-dependent branch that assigns Python numbers, followed by
// straight-line code up to the function's `return`. Each side (leaf) calls the tail, as a
// nested function, with its own values, and the returned values are selected with
// torch.where. What the sides assign stays what the original assigns (a Python float stays
// a float, computed in float64), so each side computes exactly what the original computes
// when it takes that side.
PlanResult plan_tail_once(const Context& context, const ast::stmt& statement,
                          const ast::IfExp* conditional, sema::Speculation* speculation) {
  PlanResult result;
  auto decline = [&](std::string reason) {
    result.reason = "tail duplication: " + std::move(reason);
    return std::move(result);
  };
  std::vector<BlockRef> path;
  if (conditional == nullptr) {
    if (std::string why = check_statement(context, statement, path); !why.empty())
      return decline(why);
  } else {
    if (!find_path(context.module.body, nullptr, &statement, path))
      return decline("statement not found in the module");
    for (const BlockRef& ref : path)
      if (auto* owner = ast::as<ast::If>(ref.owner);
          owner && is_where_ok_test(context, owner->test))
        return decline("fallback branch of an already predicated if");
  }
  const BlockRef& here = path.back();
  if (std::string why = check_enclosing(context, path, false); !why.empty()) return decline(why);
  const ast::Seq<ast::stmt*>& block = *here.block;
  const auto* final_return = ast::as<ast::Return>(block[block.size - 1]);
  if (here.index + 1 >= block.size || final_return == nullptr || final_return->value == nullptr)
    return decline("the branch's block does not end in `return <value>` after it");
  std::string torch(context.analysis.torch_name());
  if (torch.empty()) return decline("torch is not imported under a known name");
  if (speculation != nullptr) speculation->assume_numbers = true;
  Planner planner(context);
  planner.torch_ = torch;
  planner.speculation = speculation;
  Plan plan;
  plan.root = std::make_unique<Tree>();
  std::set<std::string_view> assigned;  // names the branch assigns
  if (conditional != nullptr) {
    const auto* assign = ast::as<ast::Assign>(&statement);
    const ast::Name* target = assign != nullptr && assign->targets.size == 1
                                  ? ast::as<ast::Name>(assign->targets[0])
                                  : nullptr;
    if (target == nullptr || assign->value != conditional)
      return decline("the conditional expression is not assigned to one name");
    if (condition_uses_scalar(conditional->test))
      return decline("condition uses .item()/.tolist() (GM106, out of scope)");
    if (!planner.build_conditional(*conditional, target->id, *plan.root))
      return decline(planner.error);
    plan.merge = {target->id};
    assigned.insert(target->id);
  } else {
    const ast::If& node = *ast::as<ast::If>(&statement);
    if (condition_uses_scalar(node.test))
      return decline("condition uses .item()/.tolist() (GM106, out of scope)");
    if (context.analysis.mutates_state(node.body) || context.analysis.mutates_state(node.orelse))
      return decline("a branch mutates state (attribute/subscript store or in-place call)");
    Condition condition;
    if (std::string why = split_condition(context, node, condition, true); !why.empty())
      return decline(why);
    // the static prefix stays a Python `if` around the rewrite; where it is false the
    // original statement runs (where.cpp)
    plan.static_prefix = condition.prefix;
    plan.static_operands = condition.static_operands;
    for (const ast::expr* operand : condition.static_operands)
      context.analysis.add_floating_dtypes(*operand, planner.prefix_facts);
    planner.static_ifs = true;
    if (!planner.build_split(condition.operands, node.body, node.orelse, *plan.root))
      return decline(planner.error);
    for (const auto* body : {&node.body, &node.orelse})
      for (std::string_view name : context.analysis.assigned_names(*body)) assigned.insert(name);
    std::vector<std::string_view> order, live = context.analysis.live_after(node);
    merge_order(*plan.root, order);
    for (std::string_view var : order)
      if (std::find(live.begin(), live.end(), var) != live.end()) plan.merge.push_back(var);
    if (plan.merge.empty()) return decline("the branches assign no variable used afterwards");
  }
  if (planner.expensive)
    return decline("a branch calls a submodule or function (both sides would run it)");
  std::vector<Tree*> leaves;
  leaves_of(*plan.root, leaves);
  bool number = false;
  size_t raising = 0;
  for (Tree* leaf : leaves) {
    if (leaf->returned) return decline("a branch returns");
    plan.defers |= !leaf->deferred.empty();
    // a raising leaf gives no value and does not call the tail: its raise is a guard on its
    // path (where.cpp's emit_guards), and the fallback raises as written
    if (leaf->raises()) {
      ++raising;
      continue;
    }
    for (std::string_view var : plan.merge) {
      bool kept = leaf->env.count(var) == 0;
      if (kept && !definitely_bound(path, var) &&
          !context.analysis.is_definitely_bound_before(statement, var))
        return decline("different live sets: `" + std::string(var) +
                       "` is assigned in only some branches and not bound before the if");
      auto& numeric = leaf->numeric;
      number = number || (kept ? number_before(context, path, var)
                               : in(numeric, var) || assigns_literal(*leaf, var));
    }
  }
  if (raising == leaves.size()) return decline("every branch raises");
  // a recorded call replays after the compiled region, past the tail the original runs after
  // it: the tail records nothing and cannot raise what it could not raise on the original path
  // (pure), so only the same limits as an ordinary plan's recorded calls
  if (plan.defers && raising != 0) return decline("a branch raises and a branch records a call");
  if (plan.defers && planner.splits != 1)
    return decline("a branch records a call under nested conditions");
  if (std::string why = check_enclosing(context, path, raising != 0); !why.empty())
    return decline(why);
  if (std::string why = reads_bound(context, statement, path, leaves); !why.empty())
    return decline(why);
  if (!number) return decline("no branch value is a Python number");  // nor another literal

  planner.final_return = final_return;
  std::set<std::string_view> tail_assigned = assigned;
  for (uint32_t i = here.index + 1; i < block.size; ++i) {
    const ast::stmt* s = block[i];
    const ast::expr* value = nullptr;
    if (auto* n = ast::as<ast::Assign>(s)) value = n->value;
    if (auto* n = ast::as<ast::AnnAssign>(s)) value = n->value;
    if (auto* n = ast::as<ast::Return>(s)) value = n->value;
    planner.hoist(value, tail_assigned);
    ast::walk(s, [&](const ast::Node* n) {
      if (auto* name = ast::as<ast::Name>(n); name && name->ctx == ast::ExprContext::Store)
        tail_assigned.insert(name->id);
      return true;
    });
  }
  // what the tail evaluates once for both sides runs before the guards, where the original
  // raises first and never evaluates it (`self.sigmas[step + 1]` past the end: IndexError)
  if (raising != 0 && !planner.hoisted.empty())
    return decline("a branch raises, and the tail evaluates `" +
                   short_text(node_text(context, *planner.hoisted[0])) +
                   "` once ahead of both sides, which would run before the raise");
  if (raising != 0) {
    std::vector<const ast::Node*> rest(block.begin() + here.index + 1, block.end());
    if (const ast::expr* index = first_index(rest))
      return decline("a branch raises, and the tail indexes `" +
                     short_text(node_text(context, *index)) +
                     "`, which may raise ahead of the guard where the original raises first");
  }
  for (Tree* leaf : leaves) {
    if (leaf->raises()) continue;
    Planner::Side side;
    for (const auto& [name, temp] : leaf->env) side.local.push_back(name);
    side.derived = leaf->derived;
    side.numeric = leaf->numeric;
    for (std::string_view var : plan.merge) {
      if (leaf->env.count(var) == 0 && number_before(context, path, var))
        side.numeric.emplace_back(var);
      if (assigns_literal(*leaf, var)) side.constants.push_back(var);
    }
    int count = 0;
    if (!planner.side_block(block, here.index + 1, side, count)) return decline(planner.error);
  }
  if (speculation != nullptr) {
    speculation->local.clear();
    speculation->derived.clear();
  }

  // The nested function's parameters: what the sides assign, the locals it reads, the
  // hoisted values.
  std::set<std::string_view> locals = function_locals(context, path);
  std::vector<std::string_view> params(plan.merge.begin(), plan.merge.end());
  for (std::string_view name : tail_reads(block, here.index + 1, locals, planner.hoisted)) {
    if (std::find(params.begin(), params.end(), name) != params.end()) continue;
    if (definitely_bound(path, name) ||
        context.analysis.is_definitely_bound_before(statement, name))
      params.push_back(name);
    else if (bool bound = false; !binds_before_reads(block, here.index + 1, name, bound))
      return decline("the tail reads `" + std::string(name) + "`, which may be unbound");
  }
  std::vector<int> hoisted_temps;
  for (const ast::expr* h : planner.hoisted) {
    int temp = planner.temps++;
    hoisted_temps.push_back(temp);
    plan.root->assigns.push_back(
        {std::string_view(), temp, parenthesize_multiline(std::string(node_text(context, *h)))});
  }
  auto placeholder = [](int temp) { return kTempOpen + std::to_string(temp) + kTempClose; };
  plan.tail_function = planner.temps++;
  for (std::string_view name : params)
    plan.tail_params += (plan.tail_params.empty() ? "" : ", ") + std::string(name);
  for (size_t i = 0; i < hoisted_temps.size(); ++i)
    plan.tail_params += (plan.tail_params.empty() ? "" : ", ") + placeholder(hoisted_temps[i]);
  for (Tree* leaf : leaves) {
    if (leaf->raises()) continue;
    std::string args;
    for (std::string_view name : params) {
      auto it = leaf->env.find(name);
      args += (args.empty() ? "" : ", ") +
              (it != leaf->env.end() ? placeholder(it->second) : std::string(name));
    }
    for (int temp : hoisted_temps) args += (args.empty() ? "" : ", ") + placeholder(temp);
    int temp = planner.temps++;
    leaf->assigns.push_back(
        {std::string_view(), temp, placeholder(plan.tail_function) + "(" + args + ")"});
    leaf->returned = temp;
  }
  for (uint32_t i = here.index + 1; i < block.size; ++i)
    tail_lines(context, *block[i], 1, planner.hoisted, hoisted_temps, plan.tail_body);
  plan.return_arity = tuple_arity(*final_return->value);
  plan.statement = &statement;
  plan.condition_if = conditional == nullptr ? ast::as<ast::If>(&statement) : nullptr;
  plan.torch = torch;
  plan.returns = true;
  plan.merge.clear();
  plan.tail = final_return;
  plan.flag_checks = planner.flag_checks;
  plan.preconditions = planner.tail_preconditions;
  if (!plan.flag_checks.empty() || !plan.preconditions.empty()) {
    // a checked rewrite: the prefix is evaluated again
    if (std::string why = check_static_prefix(context, plan); !why.empty()) return decline(why);
  }
  plan.temp_count = planner.temps;
  plan.split_count = planner.splits;
  result.plan = std::move(plan);
  return result;
}

}  // namespace

// Tail duplication where a branch value is a Python number or literal (plan_tail_once).
PlanResult plan_tail(const Context& context, const ast::stmt& statement,
                     const ast::IfExp* conditional) {
  PlanResult result = plan_speculating(context, statement, [&](sema::Speculation* speculation) {
    return plan_tail_once(context, statement, conditional, speculation);
  });
  // a decline of the checks around it is tail duplication's too
  const std::string prefix = "tail duplication: ";
  if (!result.plan && result.reason.compare(0, prefix.size(), prefix) != 0)
    result.reason = prefix + result.reason;
  return result;
}

}  // namespace graphmend::rewrite::where_detail
