// [Where] tail duplication, the plan: a branch assigning Python numbers planned together
// with the statements after it up to the function's return, as a nested function each side
// calls with its own values (plan_tail). The Planner's checks of the tail on each side are
// in tail.cpp.
#include <algorithm>
#include <set>

#include "ast/names.h"
#include "ast/walk.h"
#include "rewrite/where/planner.h"
#include "sema/binding.h"

namespace graphmend::rewrite::where_detail {

using ast::Kind;

namespace {

// Whether `var`'s value at the end of `leaf` is a literal (True, False, None, a number).
bool assigns_literal(const Tree& leaf, std::string_view var) {
  auto it = leaf.env.find(var);
  if (it == leaf.env.end()) return false;
  return std::any_of(leaf.assigns.begin(), leaf.assigns.end(), [&](const Assignment& a) {
    return a.temp == it->second && a.python_constant;
  });
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
    for (const ast::Name* read : ast::loads(node))
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
Problem check_enclosing(const Context& context, const std::vector<BlockRef>& path, bool raises) {
  for (size_t k = path.size(); k-- > 0;) {
    const ast::stmt* owner = path[k].owner;
    if (owner == nullptr) return {Reason::Other, "the branch is not in a function"};
    switch (owner->kind) {
      case Kind::FunctionDef:
      case Kind::AsyncFunctionDef:
        return {};
      case Kind::If:
        continue;
      case Kind::With:
        if (raises && !passes_exceptions(context, static_cast<const ast::With&>(*owner)))
          return {Reason::BranchRaises,
                  "a branch raises inside `with " +
                      short_text(node_text(
                          context, *static_cast<const ast::With&>(*owner).items[0]->context_expr)) +
                      "`, a context manager that may suppress the exception (the compiled guard "
                      "raises only at the compile boundary)"};
        continue;
      case Kind::For:
      case Kind::AsyncFor:
      case Kind::While:
        return {Reason::Other, "the branch is inside a loop"};
      case Kind::Try:
      case Kind::TryStar:
        return {Reason::Other,
                "the branch is inside a try statement (its handlers would see what the "
                "compiled form raises, not what the original raises)"};
      default:
        return {Reason::Other, "the branch is inside `" + short_text(node_text(context, *owner)) +
                                   "` (only if, else and with blocks hold a duplicated tail)"};
    }
  }
  return {Reason::Other, "the branch is not in a function"};
}

// Tail duplication: a data-dependent branch that assigns Python numbers, followed by
// straight-line code up to the function's `return`. Each side (leaf) calls the tail, as a
// nested function, with its own values, and the returned values are selected with
// torch.where. What the sides assign stays what the original assigns (a Python float stays
// a float, computed in float64), so each side computes exactly what the original computes
// when it takes that side.
//
// Planned in steps (plan()), each a named check that says why not.
class TailPlan {
 public:
  TailPlan(const Context& context, const ast::stmt& statement, const ast::IfExp* conditional,
           sema::Speculation* speculation)
      : context_(context),
        statement_(statement),
        conditional_(conditional),
        speculation_(speculation),
        planner_(context) {}

  Plan plan;

  // Fills `plan`; why not when it cannot.
  Problem build() {
    if (Problem why = locate(); !why.empty()) return why;
    if (Problem why = check_enclosing(context_, path_, false); !why.empty()) return why;
    if (Problem why = find_final_return(); !why.empty()) return why;
    if (Problem why = build_branches(); !why.empty()) return why;
    if (Problem why = check_leaves(); !why.empty()) return why;
    if (Problem why = hoist_tail(); !why.empty()) return why;
    if (Problem why = check_sides(); !why.empty()) return why;
    std::vector<std::string_view> params;
    if (Problem why = tail_parameters(params); !why.empty()) return why;
    call_tail(params);
    return finish();
  }

 private:
  const BlockRef& here() const { return path_.back(); }
  const ast::Seq<ast::stmt*>& block() const { return *here().block; }

  // The statement's place; not the fallback of an earlier rewrite.
  Problem locate() {
    if (conditional_ == nullptr) return check_statement(context_, statement_, path_);
    if (!find_path(context_.module.body, nullptr, &statement_, path_))
      return {Reason::Other, "statement not found in the module"};
    for (const BlockRef& ref : path_)
      if (auto* owner = ast::as<ast::If>(ref.owner);
          owner && is_where_ok_test(context_, owner->test))
        return {Reason::PredicatedFallback, "fallback branch of an already predicated if"};
    return {};
  }

  // The `return <value>` ending the branch's block, which the tail runs up to.
  Problem find_final_return() {
    final_return_ = ast::as<ast::Return>(block()[block().size - 1]);
    if (here().index + 1 >= block().size || final_return_ == nullptr ||
        final_return_->value == nullptr)
      return {Reason::Other, "the branch's block does not end in `return <value>` after it"};
    torch_ = std::string(context_.analysis.torch_name());
    if (torch_.empty())
      return {Reason::TorchNotImported, "torch is not imported under a known name"};
    return {};
  }

  // The branches' tree, with static ifs in them computed on both sides.
  Problem build_branches() {
    if (speculation_ != nullptr) speculation_->assume_numbers = true;
    planner_.torch_ = torch_;
    planner_.speculation = speculation_;
    plan.root = std::make_unique<Tree>();
    Problem why = conditional_ != nullptr ? build_conditional() : build_if();
    if (!why.empty()) return why;
    if (planner_.expensive)
      return {Reason::Other, "a branch calls a submodule or function (both sides would run it)"};
    leaves_of(*plan.root, leaves_);
    return {};
  }

  // `var = A if C else B`.
  Problem build_conditional() {
    const auto* assign = ast::as<ast::Assign>(&statement_);
    const ast::Name* target = assign != nullptr && assign->targets.size == 1
                                  ? ast::as<ast::Name>(assign->targets[0])
                                  : nullptr;
    if (target == nullptr || assign->value != conditional_)
      return {Reason::Other, "the conditional expression is not assigned to one name"};
    if (condition_uses_scalar(conditional_->test))
      return {Reason::UsesItem, "condition uses .item()/.tolist() (GM106, out of scope)"};
    if (!planner_.build_conditional(*conditional_, target->id, *plan.root)) return planner_.error;
    plan.merge = {target->id};
    assigned_.insert(target->id);
    return {};
  }

  // `if C: ... else: ...`, merging what the branches assign and is live after.
  Problem build_if() {
    const ast::If& node = *ast::as<ast::If>(&statement_);
    if (condition_uses_scalar(node.test))
      return {Reason::UsesItem, "condition uses .item()/.tolist() (GM106, out of scope)"};
    if (context_.analysis.mutates_state(node.body) || context_.analysis.mutates_state(node.orelse))
      return {Reason::MutatesState,
              "a branch mutates state (attribute/subscript store or in-place call)"};
    Condition condition;
    if (Problem why = split_condition(context_, node, condition, true); !why.empty()) return why;
    if (condition.disjunction)
      return {Reason::Other, "tail duplication under a static `or` prefix"};
    // the static prefix stays a Python `if` around the rewrite; where it is false the
    // original statement runs (emit.cpp)
    plan.static_prefix = condition.prefix;
    plan.static_operands = condition.static_operands;
    for (const ast::expr* operand : condition.static_operands)
      context_.analysis.add_floating_dtypes(*operand, planner_.prefix_facts);
    planner_.static_ifs = true;
    if (!planner_.build_split(condition.operands, node.body, node.orelse, *plan.root))
      return planner_.error;
    for (const auto* body : {&node.body, &node.orelse})
      for (std::string_view name : context_.analysis.assigned_names(*body)) assigned_.insert(name);
    std::vector<std::string_view> order, live = context_.analysis.live_after(node);
    merge_order(*plan.root, order);
    for (std::string_view var : order)
      if (std::find(live.begin(), live.end(), var) != live.end()) plan.merge.push_back(var);
    if (plan.merge.empty())
      return {Reason::NoLiveValue, "the branches assign no variable used afterwards"};
    return {};
  }

  // No leaf returns, each merged variable is bound on every side, some side's value is a
  // Python number (else the ordinary plan takes it), and raising leaves and recorded calls
  // within the limits of an ordinary plan's.
  Problem check_leaves() {
    bool number = false;
    for (Tree* leaf : leaves_) {
      if (leaf->returned) return {Reason::Other, "a branch returns"};
      plan.defers |= !leaf->deferred.empty();
      // a raising leaf gives no value and does not call the tail: its raise is a guard on
      // its path (emit.cpp's emit_guards), and the fallback raises as written
      if (leaf->raises()) {
        ++raising_;
        continue;
      }
      if (Problem why = check_merged(*leaf, number); !why.empty()) return why;
    }
    if (raising_ == leaves_.size()) return {Reason::BranchRaises, "every branch raises"};
    // a recorded call replays after the compiled region, past the tail the original runs
    // after it: the tail records nothing and cannot raise what it could not raise on the
    // original path (pure), so only the same limits as an ordinary plan's recorded calls
    if (plan.defers && raising_ != 0)
      return {Reason::BranchRaises, "a branch raises and a branch records a call"};
    if (Problem why = check_enclosing(context_, path_, raising_ != 0); !why.empty()) return why;
    if (Problem why = reads_bound(context_, statement_, path_, leaves_); !why.empty()) return why;
    if (!number)
      return {Reason::PythonNumber, "no branch value is a Python number"};  // nor another literal
    return {};
  }

  // The merged variables on one side: bound there, and whether one holds a Python number.
  Problem check_merged(const Tree& leaf, bool& number) const {
    for (std::string_view var : plan.merge) {
      bool kept = leaf.env.count(var) == 0;
      if (kept && !definitely_bound(path_, var) &&
          !context_.analysis.is_definitely_bound_before(statement_, var))
        return {Reason::DifferentLiveSets,
                "different live sets: `" + std::string(var) +
                    "` is assigned in only some branches and not bound before the if"};
      const auto& numeric = leaf.numeric;
      number = number || (kept ? number_before(context_, path_, var)
                               : std::find(numeric.begin(), numeric.end(), var) != numeric.end() ||
                                     assigns_literal(leaf, var));
    }
    return {};
  }

  // What the tail evaluates once for both sides (Planner::hoist), which must not run ahead
  // of a raising side's guard.
  Problem hoist_tail() {
    planner_.final_return = final_return_;
    std::set<std::string_view> tail_assigned = assigned_;
    for (uint32_t i = here().index + 1; i < block().size; ++i) {
      const ast::stmt* s = block()[i];
      const ast::expr* value = nullptr;
      if (auto* n = ast::as<ast::Assign>(s)) value = n->value;
      if (auto* n = ast::as<ast::AnnAssign>(s)) value = n->value;
      if (auto* n = ast::as<ast::Return>(s)) value = n->value;
      planner_.hoist(value, tail_assigned);
      for (const ast::Name* name : ast::stores(s)) tail_assigned.insert(name->id);
    }
    if (raising_ == 0) return {};
    // what the tail evaluates once for both sides runs before the guards, where the original
    // raises first and never evaluates it (`self.sigmas[step + 1]` past the end: IndexError)
    if (!planner_.hoisted.empty())
      return {Reason::BranchRaises,
              "a branch raises, and the tail evaluates `" +
                  short_text(node_text(context_, *planner_.hoisted[0])) +
                  "` once ahead of both sides, which would run before the raise"};
    std::vector<const ast::Node*> rest(block().begin() + here().index + 1, block().end());
    if (const ast::expr* index = first_index(rest))
      return {Reason::BranchRaises,
              "a branch raises, and the tail indexes `" + short_text(node_text(context_, *index)) +
                  "`, which may raise ahead of the guard where the original raises first"};
    return {};
  }

  // Each side that gives values computes the tail (Planner::side_block).
  Problem check_sides() {
    for (Tree* leaf : leaves_) {
      if (leaf->raises()) continue;
      Planner::Side side;
      for (const auto& [name, temp] : leaf->env) side.local.push_back(name);
      side.derived = leaf->derived;
      side.numeric = leaf->numeric;
      for (std::string_view var : plan.merge) {
        if (leaf->env.count(var) == 0 && number_before(context_, path_, var))
          side.numeric.emplace_back(var);
        if (assigns_literal(*leaf, var)) side.constants.push_back(var);
      }
      int count = 0;
      if (!planner_.side_block(block(), here().index + 1, side, count)) return planner_.error;
    }
    if (speculation_ != nullptr) {
      speculation_->local.clear();
      speculation_->derived.clear();
    }
    return {};
  }

  // The nested function's parameters: what the sides assign and the locals it reads (the
  // hoisted values follow them).
  Problem tail_parameters(std::vector<std::string_view>& params) const {
    std::set<std::string_view> locals = sema::function_locals(context_.analysis, path_);
    params.assign(plan.merge.begin(), plan.merge.end());
    for (std::string_view name : tail_reads(block(), here().index + 1, locals, planner_.hoisted)) {
      if (std::find(params.begin(), params.end(), name) != params.end()) continue;
      if (definitely_bound(path_, name) ||
          context_.analysis.is_definitely_bound_before(statement_, name))
        params.push_back(name);
      else if (bool bound = false; !binds_before_reads(block(), here().index + 1, name, bound))
        return {Reason::Other, "the tail reads `" + std::string(name) + "`, which may be unbound"};
    }
    return {};
  }

  // The hoisted values computed at the root, the nested function, and each side calling it
  // with its own values.
  void call_tail(const std::vector<std::string_view>& params) {
    std::vector<int> hoisted_temps;
    for (const ast::expr* h : planner_.hoisted) {
      int temp = planner_.temps++;
      hoisted_temps.push_back(temp);
      plan.root->assigns.push_back(
          {std::string_view(), temp, parenthesize_multiline(std::string(node_text(context_, *h)))});
    }
    auto placeholder = [](int temp) { return kTempOpen + std::to_string(temp) + kTempClose; };
    plan.tail_function.temp = planner_.temps++;
    for (std::string_view name : params)
      plan.tail_function.params +=
          (plan.tail_function.params.empty() ? "" : ", ") + std::string(name);
    for (size_t i = 0; i < hoisted_temps.size(); ++i)
      plan.tail_function.params +=
          (plan.tail_function.params.empty() ? "" : ", ") + placeholder(hoisted_temps[i]);
    for (Tree* leaf : leaves_) {
      if (leaf->raises()) continue;
      std::string args;
      for (std::string_view name : params) {
        auto it = leaf->env.find(name);
        args += (args.empty() ? "" : ", ") +
                (it != leaf->env.end() ? placeholder(it->second) : std::string(name));
      }
      for (int temp : hoisted_temps) args += (args.empty() ? "" : ", ") + placeholder(temp);
      int temp = planner_.temps++;
      leaf->assigns.push_back(
          {std::string_view(), temp, placeholder(plan.tail_function.temp) + "(" + args + ")"});
      leaf->returned = temp;
    }
    for (uint32_t i = here().index + 1; i < block().size; ++i)
      tail_lines(context_, *block()[i], 1, planner_.hoisted, hoisted_temps,
                 plan.tail_function.body);
  }

  // The plan returns what the tail returns; its run-time checks.
  Problem finish() {
    plan.return_arity = tuple_arity(*final_return_->value);
    plan.statement = &statement_;
    plan.condition_if = conditional_ == nullptr ? ast::as<ast::If>(&statement_) : nullptr;
    plan.torch = torch_;
    plan.returns = true;
    plan.merge.clear();
    plan.tail = final_return_;
    plan.checks.flags = planner_.flag_checks;
    plan.checks.numbers = planner_.number_flag_checks;
    plan.checks.preconditions = planner_.tail_preconditions;
    if (!plan.checks.flags.empty() || !plan.checks.numbers.empty() ||
        !plan.checks.preconditions.empty()) {
      // a checked rewrite: the prefix is evaluated again
      if (Problem why = check_static_prefix(context_, plan); !why.empty()) return why;
    }
    // a masked read (runtime.index_where) reads the conditions: emit_where puts them first
    plan.checks.masked_reads = planner_.masked_reads;
    if (Problem why = check_masked_reads(context_, planner_, plan); !why.empty()) return why;
    plan.temp_count = planner_.temps;
    plan.split_count = planner_.splits;
    return {};
  }

  const Context& context_;
  const ast::stmt& statement_;
  const ast::IfExp* conditional_;
  sema::Speculation* speculation_;
  Planner planner_;
  std::vector<BlockRef> path_;
  const ast::Return* final_return_ = nullptr;
  std::string torch_;
  std::set<std::string_view> assigned_;  // names the branch assigns
  std::vector<Tree*> leaves_;
  size_t raising_ = 0;  // leaves that raise
};

PlanResult plan_tail_once(const Context& context, const ast::stmt& statement,
                          const ast::IfExp* conditional, sema::Speculation* speculation) {
  TailPlan tail(context, statement, conditional, speculation);
  PlanResult result;
  if (Problem why = tail.build(); !why.empty()) {
    result.reason = reasons::quoting(Reason::TailDuplication, "tail duplication: ", why);
    return result;
  }
  result.plan = std::move(tail.plan);
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
  if (!result.plan && result.reason.detail.compare(0, prefix.size(), prefix) != 0)
    result.reason = reasons::quoting(Reason::TailDuplication, prefix, result.reason);
  return result;
}

}  // namespace graphmend::rewrite::where_detail
