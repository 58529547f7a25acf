// [Where] planning (see plan.h): builds the branch's tree (tree.cpp) and checks what the
// rewrite needs of it as a whole: the merge set, values torch.where can select, what is
// bound before the if, raising leaves, and which form (torch.where, torch.cond, guarded).
// Tail duplication is in tail.cpp, reads by a computed index in masked_read.cpp.
#include "rewrite/where/plan.h"

#include <algorithm>
#include <set>

#include "ast/walk.h"
#include "rewrite/where/planner.h"
#include "sema/aliasing.h"
#include "sema/binding.h"

namespace graphmend::rewrite::where_detail {

using ast::Kind;

namespace {

// The branch tree and the planner that built it.
struct Built {
  std::unique_ptr<Tree> root;
  std::unique_ptr<Planner> planner;
  bool returns = false;
  bool traced_helpers = false;  // in: Planner::traced_helpers
  bool fold_tail = false;       // in: fold the rest of the block in though no branch returns
};

// The rest of the block after the if when it ends in `return B` and before that only assigns
// (`if not target.sum(): return tensor(0.0)`, then `tp = ...`, `return tp / n`): what a
// branch that does not return runs next. Null otherwise; nothing there may be a site of its
// own (no if, conditional expression, loop or call statement).
const ast::Return* block_tail(const BlockRef& here, std::vector<const ast::stmt*>& statements) {
  const ast::Seq<ast::stmt*>& block = *here.block;
  if (here.index + 1 >= block.size) return nullptr;
  const auto* last = ast::as<ast::Return>(block[block.size - 1]);
  if (last == nullptr || last->value == nullptr) return nullptr;
  for (uint32_t i = here.index + 1; i + 1 < block.size; ++i) {
    const ast::stmt* s = block[i];
    if (!ast::is<ast::Assign>(s) && !ast::is<ast::AugAssign>(s) && !ast::is<ast::AnnAssign>(s))
      return nullptr;
    if (contains_kind(s, {Kind::IfExp, Kind::NamedExpr, Kind::Lambda})) return nullptr;
    statements.push_back(s);
  }
  return last;
}

// Builds the tree; when only some branches return and the block ends in `return B`, folds
// the rest of the block in.
Problem build_tree(const Context& context, const ast::If& node, const std::vector<BlockRef>& path,
                   const Condition& condition, const std::string& torch,
                   sema::Speculation* speculation, Built& built) {
  std::vector<const ast::stmt*> tail_statements;
  const ast::Return* follower = block_tail(path.back(), tail_statements);
  if (built.fold_tail && follower == nullptr)
    return {Reason::Other, "the rest of the block does not end in a return after assignments only"};
  for (int attempt = built.fold_tail ? 1 : 0; attempt < 2; ++attempt) {
    built.planner = std::make_unique<Planner>(context);
    built.planner->torch_ = torch;
    built.planner->speculation = speculation;
    built.planner->traced_helpers = built.traced_helpers;
    built.planner->root = &node;
    built.planner->static_ifs = true;  // a flag's if in a branch: both sides, then selected
    built.planner->tail = attempt == 1 ? follower : nullptr;
    if (attempt == 1) built.planner->tail_statements = tail_statements;
    for (const ast::expr* static_operand : condition.static_operands) {
      context.analysis.add_floating_dtypes(*static_operand, built.planner->prefix_facts);
    }
    built.root = std::make_unique<Tree>();
    if (!built.planner->build_split(condition.operands, node.body, node.orelse, *built.root))
      return built.planner->error;
    std::vector<Tree*> leaves;
    leaves_of(*built.root, leaves);
    // a raising leaf neither returns nor falls through: it fits either shape
    size_t returning = 0, raising = 0;
    for (Tree* leaf : leaves) {
      returning += leaf->returned ? 1 : 0;
      raising += leaf->raises() ? 1 : 0;
    }
    if (raising == leaves.size()) return {Reason::BranchRaises, "every branch raises"};
    if (returning + raising == leaves.size()) {
      built.returns = true;
      return {};
    }
    if (returning == 0) return {};
    if (attempt == 1 || follower == nullptr)
      return {Reason::Other,
              "only some branches return (and the rest of the block does not end in a return "
              "after assignments only)"};
  }
  return {};
}

// A merged variable a branch sets to True, False, None or a number literal (`detected =
// True`, torchmetrics' AUC `direction = -1.0`), or a branch returning one: torch.where never
// selects it (where_ok holds for tensors only), so the rewrite would only keep the break.
Problem merges_constant(const std::vector<Tree*>& leaves, const Plan& plan) {
  for (const Tree* leaf : leaves)
    for (const Assignment& assignment : leaf->assigns) {
      if (!assignment.python_constant || leaf->raises()) continue;
      if (plan.returns && leaf->returned == assignment.temp)
        return {Reason::SelectsPythonValue,
                "a branch returns " + assignment.value + " (torch.where selects tensors only)"};
      auto final_value = leaf->env.find(assignment.var);
      bool merged = !plan.returns && std::find(plan.merge.begin(), plan.merge.end(),
                                               assignment.var) != plan.merge.end();
      if (merged && final_value != leaf->env.end() && final_value->second == assignment.temp)
        return {Reason::SelectsPythonValue, "the branch sets `" + std::string(assignment.var) +
                                                "` to " + assignment.value +
                                                " (torch.where selects tensors only)"};
    }
  return {};
}

// The number of values every leaf returns as a tuple display (`return a, b`), selected one
// by one; 0 when a leaf returns anything else or the counts differ.
size_t common_arity(const std::vector<Tree*>& leaves) {
  std::optional<size_t> arity;
  for (const Tree* leaf : leaves) {
    if (leaf->raises()) continue;
    if (arity && leaf->returned_arity != *arity) return 0;
    arity = leaf->returned_arity;
  }
  return arity.value_or(0);
}

// A merged variable that may share its tensor with another name (a branch value that is a
// name, a view or a method's result, or the value it kept from before the if), in a function
// that changes tensors in place: torch.where and torch.cond give a new tensor, so a change
// through the variable would no longer reach the other name, or the other way round.
Problem shares_merged_tensor(const Context& context, const ast::stmt& statement,
                             const std::vector<Tree*>& leaves, const Plan& plan) {
  if (plan.returns) return {};
  std::set<std::string_view> names(plan.merge.begin(), plan.merge.end());
  for (const Tree* leaf : leaves)
    for (const auto& [name, node] : leaf->reads) names.insert(name);
  for (std::string_view var : plan.merge)
    for (const Tree* leaf : leaves) {
      auto shares = leaf->shares.find(var);
      if (shares != leaf->shares.end() && !shares->second) continue;
      // kept or changed, a tensor the function made and holds alone shares nothing, on
      // every side
      if (!is_attribute_var(var) &&
          sema::is_fresh_in_place_target(context.analysis, context.module, statement, var))
        break;
      // the same for every variable: asked once, of the first that may share
      if (!sema::changes_tensors_in_place(context.analysis, context.module, statement, names))
        return {};
      return {Reason::SharesTensor,
              "`" + std::string(var) +
                  "` may hold a tensor another name holds too (a name, a view, a method's result "
                  "or its value before the if), and the function changes tensors in place: the "
                  "predicated value is a new tensor, which such a change would not reach"};
    }
  return {};
}

// What the path to a leaf stores in attributes: in order, and whether a stored value may be
// an existing tensor or a view of one.
struct PathStores {
  std::vector<std::string_view> order;
  std::string_view shared;  // the first attribute stored such a value, or empty
};

// A store of a local that solely holds a new tensor (sema::is_sole_holder) shares nothing.
void path_stores(const Context& context, const ast::If& node, const Tree& tree, PathStores stores,
                 std::vector<PathStores>& out) {
  if (tree.raises()) return;  // it stores nothing: its guard raises first
  for (const Assignment& a : tree.assigns) {
    if (!is_attribute_var(a.var)) continue;
    if (std::find(stores.order.begin(), stores.order.end(), a.var) == stores.order.end())
      stores.order.push_back(a.var);
    auto shares = tree.shares.find(a.var);
    auto name = tree.stored_name.find(a.var);
    bool sole = name != tree.stored_name.end() && name->second != nullptr &&
                sema::is_sole_holder(context.analysis, context.module, node, *name->second);
    if (stores.shared.empty() && (shares == tree.shares.end() || shares->second) && !sole)
      stores.shared = a.var;
  }
  if (!tree.is_split()) {
    out.push_back(std::move(stores));
    return;
  }
  path_stores(context, node, *tree.on_true, stores, out);
  path_stores(context, node, *tree.on_false, stores, out);
}

// Attributes the branches store (`self.x_min = ...`), merged as variables: the rewrite
// stores each once, after computing every value, whichever branch holds. So every branch
// that does not raise stores the same attributes in one order, each a new tensor (the
// selected value is one: an object that held an existing tensor would hold a copy).
Problem check_attribute_stores(const Context& context, const ast::If& node, const Plan& plan) {
  std::vector<std::string_view> order;
  for (std::string_view var : plan.merge)
    if (is_attribute_var(var)) order.push_back(var);
  if (order.empty()) return {};
  std::vector<PathStores> leaves;
  path_stores(context, node, *plan.root, {}, leaves);
  for (const PathStores& stores : leaves) {
    if (stores.order != order)
      return {Reason::MutatesState, "the branches do not all store `" + std::string(order[0]) +
                                        "` and the other attributes they store, in one order"};
    if (!stores.shared.empty())
      return {Reason::SharesTensor, "a branch stores in `" + std::string(stores.shared) +
                                        "` a tensor that may be held elsewhere too (a name, a "
                                        "view, a method's result): the predicated value is a "
                                        "new tensor"};
  }
  return {};
}

// The variables assigned in some branch and live after the if, each bound on every path,
// and the attributes the branches store.
Problem merge_set(const Context& context, const ast::If& node, const std::vector<BlockRef>& path,
                  const std::vector<Tree*>& leaves, Plan& plan) {
  std::vector<std::string_view> assigned;
  merge_order(*plan.root, assigned);
  std::vector<std::string_view> live = context.analysis.live_after(node);
  for (std::string_view var : assigned)
    if (is_attribute_var(var) || std::find(live.begin(), live.end(), var) != live.end())
      plan.merge.push_back(var);
  if (Problem why = check_attribute_stores(context, node, plan); !why.empty()) return why;
  if (plan.merge.empty() && !plan.defers)  // a branch that only records calls selects nothing
    return {Reason::NoLiveValue, "the branches assign no variable used afterwards"};
  for (std::string_view var : plan.merge) {
    for (Tree* leaf : leaves) {
      if (leaf->env.count(var) == 0 && !leaf->raises() && !definitely_bound(path, var) &&
          !context.analysis.is_definitely_bound_before(node, var))
        return {Reason::DifferentLiveSets,
                "different live sets: `" + std::string(var) +
                    "` is assigned in only some branches and not bound before the if"};
    }
  }
  return {};
}

}  // namespace

// Every local a branch reads before assigning it is bound before the if: the rewrite
// evaluates every branch, and an unbound one would raise where the original did not.
Problem reads_bound(const Context& context, const ast::stmt& node,
                    const std::vector<BlockRef>& path, const std::vector<Tree*>& leaves) {
  std::set<std::string_view> locals = sema::function_locals(context.analysis, path);
  auto unbound = [&](std::string_view name) {
    return locals.count(name) != 0 && !definitely_bound(path, name) &&
           !context.analysis.is_definitely_bound_before(node, name);
  };
  for (const Tree* leaf : leaves) {
    for (std::string_view name : leaf->free_reads)
      if (unbound(name))
        return {Reason::MaybeUnbound,
                "a branch reads `" + std::string(name) + "`, which may be unbound before the if"};
    // a guard's message function reads it as a free variable: a NameError of its own
    if (!leaf->raises()) continue;
    for (std::string_view name : leaf->raise->message_reads)
      if (unbound(name))
        return {Reason::MaybeUnbound, "a branch raises with a message reading `" +
                                          std::string(name) +
                                          "`, which may be unbound before the if"};
  }
  return {};
}

// A checked plan evaluates the static prefix once more when the check fails.
Problem check_static_prefix(const Context& context, const Plan& plan) {
  for (const ast::expr* operand : plan.static_operands) {
    if (!context.analysis.is_pure(*operand))
      return {Reason::NotPure,
              "condition `" + short_text(node_text(context, *operand)) +
                  "` is not pure (a checked rewrite evaluates it again when the check fails)"};
  }
  return {};
}

namespace {

// The if itself, before its branches: not an elif left behind, no scalar read in its
// condition, no state written in a branch, torch imported.
Problem check_if(const Context& context, const ast::If& node) {
  if (written_as_elif(context, node))
    return {Reason::ElifAlone,
            "an elif whose if is not predicated with it: its rewrite would replace the elif and "
            "drop the else it belongs to"};
  if (condition_uses_scalar(node.test))
    return {Reason::UsesItem, "condition uses .item()/.tolist() (GM106, out of scope)"};
  if (mutates_beyond_attribute_stores(context, node, node.body) ||
      mutates_beyond_attribute_stores(context, node, node.orelse))
    return {Reason::MutatesState,
            "a branch mutates state (subscript store, in-place call or attribute store "
            "otherwise than `name.attr = value`)"};
  if (context.analysis.torch_name().empty())
    return {Reason::TorchNotImported, "torch is not imported under a known name"};
  return {};
}

// What the branches give: the merge set, values torch.where can select, no merged tensor
// another name shares, every name read bound before the if.
Problem check_values(const Context& context, const ast::If& node, const std::vector<BlockRef>& path,
                     const std::vector<Tree*>& leaves, Plan& plan) {
  std::vector<std::string_view> assigned;
  merge_order(*plan.root, assigned);
  if (plan.returns && std::any_of(assigned.begin(), assigned.end(), is_attribute_var))
    return {Reason::MutatesState, "a branch stores an attribute, and the branches return"};
  if (!plan.returns) {
    if (Problem why = merge_set(context, node, path, leaves, plan); !why.empty()) return why;
  }
  if (Problem why = merges_constant(leaves, plan); !why.empty()) return why;
  if (Problem why = shares_merged_tensor(context, node, leaves, plan); !why.empty()) return why;
  return reads_bound(context, node, path, leaves);
}

// A raising leaf's guard runs after every value is computed: no other branch may index
// ahead of it, call code (a torch.cond branch cannot raise) or record a call.
Problem check_raising(const Context& context, const ast::If& node, const Planner& planner,
                      const Plan& plan) {
  std::vector<const ast::Node*> computed(node.body.begin(), node.body.end());
  computed.insert(computed.end(), node.orelse.begin(), node.orelse.end());
  computed.insert(computed.end(), plan.tail_statements.begin(), plan.tail_statements.end());
  if (plan.tail != nullptr) computed.push_back(plan.tail);
  if (const ast::expr* index = first_index(computed))
    return {Reason::BranchRaises,
            "a branch raises, and another branch indexes `" +
                short_text(node_text(context, *index)) +
                "`, which may raise ahead of the guard where the original raises first"};
  if (planner.expensive || plan.defers)
    return {Reason::BranchRaises, planner.expensive
                                      ? "a branch raises and a branch calls code (a torch.cond "
                                        "branch cannot raise as the original does)"
                                      : "a branch raises and a branch records a call"};
  return {};
}

// The form: torch.cond where a branch calls code; torch.where otherwise, with torch.cond
// in training where it can.
Problem choose_form(const Context& context, const std::vector<BlockRef>& path,
                    const std::vector<Tree*>& leaves, const Planner& planner, bool raises,
                    Plan& plan) {
  if (plan.defers && planner.expensive)
    return {Reason::Other, "a branch records a call and calls code (torch.cond cannot record it)"};
  // torch.cond's branch functions are written from the branches' assignments, which a
  // static if's sides are not
  if (planner.met_static_if && planner.expensive)
    return {Reason::UnsupportedStatement,
            "a static if nested in a tensor branch that calls code (torch.cond)"};
  bool stores = std::any_of(plan.merge.begin(), plan.merge.end(), is_attribute_var);
  if (stores && planner.expensive)
    return {Reason::MutatesState,
            "a branch stores an attribute and calls code (a torch.cond branch cannot store it)"};
  if (planner.expensive) return plan_cond(context, path, leaves, plan);
  if (!plan.defers && !raises && plan.checks.masked_reads.empty() && leaves.size() == 2 &&
      !plan.root->on_true->is_split() && !plan.root->on_false->is_split()) {
    // In training, where_ok says no (the unselected side's gradients); torch.cond over
    // the branches as written then selects without a break, where it can (not over a
    // subscript by a tensor index: Dynamo reads it with .item(), a failed compile there).
    plan.cond.in_training = !stores && !planner.pure_helper && !planner.met_static_if &&
                            cond_operands(context, path, leaves, plan).empty();
    if (!plan.cond.in_training) plan.cond.operands.clear();
  }
  return {};
}

// A plan covered by the enclosing predicated if `cover`: that one's rewrite predicates it.
PlanResult covered_plan(const ast::If& node, const ast::If& cover) {
  PlanResult result;
  Plan plan;
  plan.statement = &node;
  plan.covered_by = &cover;
  result.plan = std::move(plan);
  return result;
}

PlanResult plan_once(const Context& context, const ast::stmt& statement, bool check_enclosing,
                     sema::Speculation* speculation, bool traced_helpers = false,
                     bool fold_tail = false) {
  PlanResult result;
  auto decline = [&](Problem reason) {
    result.reason = std::move(reason);
    return std::move(result);
  };
  std::vector<BlockRef> path;
  if (Problem why = check_statement(context, statement, path); !why.empty()) return decline(why);
  const ast::If& node = *ast::as<ast::If>(&statement);
  if (check_enclosing) {
    if (const ast::If* cover = covering_if(context, path)) return covered_plan(node, *cover);
  }
  if (Problem why = check_if(context, node); !why.empty()) return decline(why);
  std::string torch(context.analysis.torch_name());
  Condition condition;
  if (Problem why = split_condition(context, node, condition); !why.empty()) return decline(why);
  Built built;
  built.traced_helpers = traced_helpers;
  built.fold_tail = fold_tail;
  if (Problem why = build_tree(context, node, path, condition, torch, speculation, built);
      !why.empty())
    return decline(why);

  Plan plan;
  plan.statement = &node;
  plan.torch = torch;
  plan.returns = built.returns;
  plan.static_prefix = condition.prefix;
  plan.static_disjunction = condition.disjunction;
  plan.tail = built.planner->tail;
  plan.tail_statements = built.planner->tail_statements;
  plan.root = std::move(built.root);
  std::vector<Tree*> leaves;
  leaves_of(*plan.root, leaves);
  for (const Tree* leaf : leaves) plan.defers |= !leaf->deferred.empty();
  if (Problem why = check_values(context, node, path, leaves, plan); !why.empty())
    return decline(why);
  if (plan.returns) plan.return_arity = common_arity(leaves);
  plan.static_operands = condition.static_operands;
  if (plan.static_disjunction) {  // the fallback `elif` evaluates the flags again
    if (Problem why = check_static_prefix(context, plan); !why.empty()) return decline(why);
  }
  plan.checks.masked_reads = built.planner->masked_reads;
  plan.checks.flags = built.planner->flag_checks;
  plan.checks.numbers = built.planner->number_flag_checks;
  // grad mode on: the original statement (the sides may differ in requiring grad)
  if (built.planner->changes_copies)
    plan.checks.preconditions.push_back("not " + torch + ".is_grad_enabled()");
  if (Problem why = check_masked_reads(context, *built.planner, plan); !why.empty())
    return decline(why);
  if (speculation != nullptr) {  // the operands are read before the if
    speculation->local.clear();
    speculation->derived.clear();
  }
  bool raises =
      std::any_of(leaves.begin(), leaves.end(), [](Tree* leaf) { return leaf->raises(); });
  if (raises) {
    if (Problem why = check_raising(context, node, *built.planner, plan); !why.empty())
      return decline(why);
  }
  if (Problem why = choose_form(context, path, leaves, *built.planner, raises, plan); !why.empty())
    return decline(why);
  plan.temp_count = built.planner->temps;
  plan.split_count = built.planner->splits;
  plan.condition_if = &node;
  result.plan = std::move(plan);
  return result;
}

// `y = A if C else B` or `return A if C else B`: a split with one value on each side.
PlanResult plan_conditional_once(const Context& context, const ast::stmt& statement,
                                 const ast::IfExp& e, sema::Speculation* speculation) {
  PlanResult result;
  auto decline = [&](Problem reason) {
    result.reason = std::move(reason);
    return std::move(result);
  };
  std::string_view var;
  const auto* assign = ast::as<ast::Assign>(&statement);
  const auto* ret = ast::as<ast::Return>(&statement);
  if (assign != nullptr && assign->targets.size == 1 && assign->value == &e &&
      ast::is<ast::Name>(assign->targets[0])) {
    var = ast::as<ast::Name>(assign->targets[0])->id;
  } else if (ret == nullptr || ret->value != &e) {
    return decline(
        {Reason::NotAnIf,
         "a conditional expression that is not the whole value of an assignment to one name "
         "or of a return"});
  }
  std::vector<BlockRef> path;
  if (!find_path(context.module.body, nullptr, &statement, path))
    return decline({Reason::Other, "statement not found in the module"});
  for (const BlockRef& ref : path)
    if (auto* owner = ast::as<ast::If>(ref.owner); owner && is_where_ok_test(context, owner->test))
      return decline({Reason::PredicatedFallback, "fallback branch of an already predicated if"});
  std::string torch(context.analysis.torch_name());
  if (torch.empty())
    return decline({Reason::TorchNotImported, "torch is not imported under a known name"});
  if (condition_uses_scalar(e.test))
    return decline({Reason::UsesItem, "condition uses .item()/.tolist() (GM106, out of scope)"});
  for (const ast::expr* value : {e.body, e.orelse})
    if (const ast::expr* number = number_literal(value))
      return decline({Reason::PythonNumber,
                      "the value `" + short_text(node_text(context, *number)) +
                          "` is a Python number: torch.where needs tensors on both sides, and a "
                          "tensor in its place computes in float32 where Python computes in "
                          "float64"});
  Planner planner(context);
  planner.torch_ = torch;
  planner.speculation = speculation;
  Plan plan;
  plan.root = std::make_unique<Tree>();
  if (!planner.build_conditional(e, var, *plan.root)) return decline(planner.error);
  if (planner.expensive)
    return decline({Reason::ConditionalCallsCode,
                    "a conditional expression calling a submodule or function (torch.cond "
                    "predicates if statements)"});
  std::vector<Tree*> leaves;
  leaves_of(*plan.root, leaves);
  if (Problem why = reads_bound(context, statement, path, leaves); !why.empty())
    return decline(why);
  plan.statement = &statement;
  plan.torch = torch;
  plan.returns = var.empty();
  if (!plan.returns) plan.merge = {var};
  if (Problem why = shares_merged_tensor(context, statement, leaves, plan); !why.empty())
    return decline(why);
  plan.temp_count = planner.temps;
  plan.split_count = planner.splits;
  plan.checks.masked_reads = planner.masked_reads;
  if (Problem why = check_masked_reads(context, planner, plan); !why.empty()) return decline(why);
  result.plan = std::move(plan);
  return result;
}

}  // namespace

PlanResult plan_statement(const Context& context, const ast::stmt& statement,
                          bool check_enclosing) {
  PlanResult plain = plan_speculating(context, statement, [&](sema::Speculation* speculation) {
    return plan_once(context, statement, check_enclosing, speculation);
  });
  if (plain.plan && plain.plan->covered_by != nullptr) return plain;
  PlanResult tail = plan_tail(context, statement, nullptr);
  if (tail.plan) return tail;
  if (plain.plan) return plain;
  // last: torch.cond over helpers only Dynamo's trace shows traceable (runtime.cond_on)
  PlanResult traced = plan_speculating(context, statement, [&](sema::Speculation* speculation) {
    return plan_once(context, statement, check_enclosing, speculation, true);
  });
  if (traced.plan) return traced;
  // a kept value torch.cond cannot return (`variance = 0` before the if): each branch
  // function runs the rest of the block to its return, and returns what the function does
  if (traced.reason.reason == Reason::PythonNumber) {
    PlanResult folded = plan_speculating(context, statement, [&](sema::Speculation* speculation) {
      return plan_once(context, statement, check_enclosing, speculation, true, true);
    });
    if (folded.plan) return folded;
    // the torch.cond pass got furthest: its reason, and why the fold could not take it
    return {std::nullopt, reasons::quoting(traced.reason.reason,
                                           traced.reason.detail +
                                               "; with the rest of the block in the branches: ",
                                           folded.reason)};
  }
  // a change in place is torch.cond's only: why that pass could not take it
  if (plain.reason.reason == Reason::MutatesState &&
      plain.reason.detail.find(kInPlaceOnCopies) != std::string::npos)
    return traced;
  // only tail duplication takes an else branch holding an if, or a Python value: say why
  // it could not
  const std::string& why = plain.reason.detail;
  bool tail_tried = why.find("else branch holding another if") != std::string::npos ||
                    why.find("torch.where selects tensors only") != std::string::npos;
  if (tail_tried &&
      tail.reason.detail.find("no branch value is a Python number") == std::string::npos)
    plain.reason = reasons::quoting(plain.reason.reason, why + "; ", tail.reason);
  return plain;
}

PlanResult plan_conditional(const Context& context, const ast::stmt& statement,
                            const ast::IfExp& e) {
  PlanResult plain = plan_speculating(context, statement, [&](sema::Speculation* speculation) {
    return plan_conditional_once(context, statement, e, speculation);
  });
  if (plain.plan) return plain;
  PlanResult tail = plan_tail(context, statement, &e);
  if (tail.plan) return tail;
  // a Python number declined the plain form: say too why the tail could not take it
  if (plain.reason.detail.find("is a Python number") != std::string::npos)
    plain.reason = reasons::quoting(plain.reason.reason, plain.reason.detail + "; ", tail.reason);
  return plain;
}

}  // namespace graphmend::rewrite::where_detail
