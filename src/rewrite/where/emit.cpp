// [Where] emission: the text of a plan (plan.h) in place of its statement: torch.where over
// the branches' values with the original kept as the fallback, torch.cond over two nested
// functions ([Cond]'s emit_cond), the run-time checks around either, and the tail's nested
// function.
#include "rewrite/where/emit.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ast/walk.h"
#include "rewrite/cond/cond.h"
#include "rewrite/emitter.h"
#include "rewrite/rewrite.h"
#include "rewrite/where/plan.h"

namespace graphmend::rewrite {
namespace {

using where_detail::Plan;
using where_detail::Tree;

// Replaces the temp and condition placeholders of `text` with `temps` and `conds` (by id).
std::string resolve(std::string_view text, const std::vector<std::string>& temps,
                    const std::vector<std::string>& conds) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    bool temp = text[i] == where_detail::kTempOpen;
    if (!temp && text[i] != where_detail::kCondOpen) {
      out += text[i];
      continue;
    }
    size_t close = text.find(temp ? where_detail::kTempClose : where_detail::kCondClose, i);
    if (close == std::string_view::npos) break;
    size_t id = std::stoul(std::string(text.substr(i + 1, close - i - 1)));
    out += temp ? temps[id] : conds[id];
    i = close;
  }
  return out;
}

struct Names {
  std::vector<std::string> temps;             // by plan temp id
  std::vector<std::string> conds;             // by plan split id
  std::string true_function, false_function;  // CondForm::in_training's branches
};

void collect_splits(const Tree& tree, std::vector<const Tree*>& splits,
                    std::vector<const Tree*>& leaves) {
  if (tree.is_split()) {
    splits.push_back(&tree);
    collect_splits(*tree.on_true, splits, leaves);
    collect_splits(*tree.on_false, splits, leaves);
  } else {
    leaves.push_back(&tree);
  }
}

void emit_assignments(const Tree& tree, const Names& names, Emitter& out) {
  if (tree.raises()) return;  // nothing reads what a raising leaf assigns
  for (const auto& a : tree.assigns)
    out.line(0, names.temps[static_cast<size_t>(a.temp)] + " = " +
                    resolve(a.value, names.temps, names.conds));
  if (tree.is_split()) {
    emit_assignments(*tree.on_true, names, out);
    emit_assignments(*tree.on_false, names, out);
  }
}

// The value `var` has at the end of `leaf`: its temp, or the variable itself (unchanged).
std::string leaf_value(const Tree& leaf, std::string_view var, const Names& names) {
  auto it = leaf.env.find(var);
  if (it == leaf.env.end()) return std::string(var);
  return names.temps[static_cast<size_t>(it->second)];
}

// A leaf's return value; `element` >= 0: that element of the tuple it returns.
std::string return_value(const Tree& leaf, const Names& names, int element = -1) {
  std::string value = names.temps[static_cast<size_t>(*leaf.returned)];
  return element < 0 ? value : value + "[" + std::to_string(element) + "]";
}

// Whether a leaf's value of `var` (its return: none) is Assignment::gradient_safe; the value
// from before the if, kept, is.
bool gradient_safe_value(const Tree& leaf, std::optional<std::string_view> var) {
  std::optional<int> temp = leaf.returned;
  if (var) {
    auto it = leaf.env.find(*var);
    if (it == leaf.env.end()) return true;
    temp = it->second;
  }
  const where_detail::Assignment* assigned = temp ? leaf.assignment(*temp) : nullptr;
  return assigned != nullptr && assigned->gradient_safe;
}

std::string where_expr(const Plan& plan, const Tree& tree, std::optional<std::string_view> var,
                       const Names& names, int element = -1) {
  if (!tree.is_split())
    return var ? leaf_value(tree, *var, names) : return_value(tree, names, element);
  // a side that only raises gives no value: where it is taken, its guard has raised
  if (where_detail::only_raises(*tree.on_true))
    return where_expr(plan, *tree.on_false, var, names, element);
  if (where_detail::only_raises(*tree.on_false))
    return where_expr(plan, *tree.on_true, var, names, element);
  return plan.torch + ".where(" + names.conds[static_cast<size_t>(tree.split_id)] + ", " +
         where_expr(plan, *tree.on_true, var, names, element) + ", " +
         where_expr(plan, *tree.on_false, var, names, element) + ")";
}

// Tail duplication: the nested function holding the tail, which every leaf calls.
void emit_tail_function(const Plan& plan, const Names& names, Emitter& out) {
  out.line(0, "def " + names.temps[static_cast<size_t>(plan.tail_function.temp)] + "(" +
                  resolve(plan.tail_function.params, names.temps, names.conds) + "):");
  for (const auto& [level, text] : plan.tail_function.body)
    out.line(level, resolve(text, names.temps, names.conds));
}

void emit_fallback_body(const Plan& plan, const Tree& tree, const Names& names, int level,
                        Emitter& out);

// A statement's text at `level`: each further line keeps its indentation relative to the
// statement's, `indent` (lines inside a triple-quoted string or after a backslash
// continuation are part of a string, and stay exactly as written).
void emit_statement(std::string_view indent, std::string_view text, int level, Emitter& out) {
  bool verbatim = text.find("\"\"\"") != std::string_view::npos ||
                  text.find("'''") != std::string_view::npos ||
                  text.find("\\\n") != std::string_view::npos;
  if (verbatim) {
    out.line(level, text);
    return;
  }
  size_t start = 0;
  for (bool first = true; start <= text.size(); first = false) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    if (!first && line.substr(0, indent.size()) == indent) line.remove_prefix(indent.size());
    out.line(level, line);
    start = end + 1;
  }
}

// A call a branch records (`text`: recorded or run as written), under the tests of the
// static ifs it sits under.
void emit_deferred(const where_detail::DeferredCall& call, std::string_view text, int level,
                   Emitter& out) {
  if (!call.static_tests.empty()) {
    std::string tests;
    for (const std::string& test : call.static_tests)
      tests += (tests.empty() ? "" : " and ") + test;
    out.line(level++, "if " + tests + ":");
  }
  emit_statement(call.indent, text, level, out);
}

// Whether a leaf's fallback body would be `pass`: it returns nothing, binds no merged
// variable, records no call and does not raise.
bool does_nothing(const Plan& plan, const Tree& leaf) {
  if (leaf.is_split() || plan.returns || !leaf.deferred.empty() || leaf.raises()) return false;
  for (std::string_view var : plan.merge) {
    if (leaf.env.count(var) != 0) return false;
  }
  return true;
}

// `<keyword> <cond>:` + true body, then the false side as elif/else (no `else: pass`).
void emit_fallback_chain(const Plan& plan, const Tree& tree, const Names& names, int level,
                         std::string_view keyword, Emitter& out) {
  // an impure condition was evaluated once already: its temp is tested, as the original's
  // `if` tests the value (bool())
  const std::string& condition =
      tree.evaluated_once ? names.conds[static_cast<size_t>(tree.split_id)] : tree.cond_python;
  out.line(level, std::string(keyword) + " " + condition + ":");
  emit_fallback_body(plan, *tree.on_true, names, level + 1, out);
  if (tree.on_false->is_split()) {
    emit_fallback_chain(plan, *tree.on_false, names, level, "elif", out);
  } else if (!does_nothing(plan, *tree.on_false)) {
    out.line(level, "else:");
    emit_fallback_body(plan, *tree.on_false, names, level + 1, out);
  }
}

void emit_fallback_body(const Plan& plan, const Tree& tree, const Names& names, int level,
                        Emitter& out) {
  if (tree.is_split()) {
    emit_fallback_chain(plan, tree, names, level, "if", out);
    return;
  }
  for (const where_detail::DeferredCall& call : tree.deferred)
    emit_deferred(call, call.plain, level, out);
  if (tree.raises()) {
    emit_statement(tree.raise->indent, tree.raise->written, level, out);
    return;
  }
  if (plan.returns) {
    out.line(level, "return " + return_value(tree, names));
    return;
  }
  if (does_nothing(plan, tree)) {
    out.line(level, "pass");
    return;
  }
  for (std::string_view var : plan.merge) {
    if (tree.env.count(var) != 0)
      out.line(level, std::string(var) + " = " + leaf_value(tree, var, names));
  }
}

// Each split's condition as a tensor expression, by split id.
std::vector<std::string> condition_texts(const Plan& plan) {
  std::vector<const Tree*> splits, leaves;
  collect_splits(*plan.root, splits, leaves);
  std::vector<std::string> texts(splits.size());
  for (const Tree* split : splits) {
    std::string cond = split->cond_tensor;
    if (cond.find('\n') != std::string::npos) cond = "(" + cond + ")";
    texts[static_cast<size_t>(split->split_id)] = cond;
  }
  return texts;
}

// Whether a leaf is taken: the conjunction of the conditions of the splits above it, each
// as the side taken (`c` or `torch.logical_not(c)`).
std::string path_condition(const Plan& plan, const Tree& leaf, const Names& names) {
  std::string holds;
  for (const auto& [split, side] : leaf.path) {
    const std::string& condition = names.conds[static_cast<size_t>(split)];
    std::string term = side ? condition : plan.torch + ".logical_not(" + condition + ")";
    holds = holds.empty() ? term : plan.torch + ".logical_and(" + holds + ", " + term + ")";
  }
  return holds;
}

// The calls the leaves record, each with the condition of its leaf's path.
void emit_recorded_calls(const Plan& plan, const std::vector<const Tree*>& leaves,
                         const Names& names, Emitter& out) {
  for (const Tree* leaf : leaves) {
    std::string holds = path_condition(plan, *leaf, names);
    for (const where_detail::DeferredCall& call : leaf->deferred) {
      std::string text = call.recorded;
      size_t at = text.find(where_detail::kPathCondition);
      if (at != std::string::npos) text.replace(at, where_detail::kPathCondition.size(), holds);
      emit_deferred(call, text, 1, out);
    }
  }
}

// Each raising leaf's raise as [Trap]'s guard on the leaf's path: eagerly it raises where
// the original raises; compiled, an in-graph assert the compile boundary turns back into
// the original exception.
void emit_guards(const Plan& plan, const Context& context, const std::vector<const Tree*>& leaves,
                 const Names& names, Emitter& out) {
  for (const Tree* leaf : leaves) {
    if (!leaf->raises()) continue;
    out.line(1, context.runtime + leaf->raise->guard_function + path_condition(plan, *leaf, names) +
                    leaf->raise->guard_arguments);
  }
}

// The torch.cond call of `plan`'s two leaves ([Cond]'s emit_cond), selecting on `condition`.
CondCall cond_call(const Plan& plan, const std::string& condition) {
  CondCall call;
  call.condition = condition;
  call.operands = plan.cond.operands;
  call.returns = plan.returns;
  call.targets = plan.merge;
  call.on_true = &plan.root->on_true->cond;
  call.on_false = &plan.root->on_false->cond;
  return call;
}

void emit_where(const Plan& plan, const Context& context, const Names& names, Emitter& out) {
  // A masked read (runtime.index_where) reads the conditions: they come first then. So
  // does an impure condition: the original evaluates it before any branch value.
  bool conditions_first = !plan.checks.masked_reads.empty() || plan.root->evaluated_once;
  std::vector<std::string> conditions = condition_texts(plan);
  auto emit_conditions = [&] {
    for (size_t i = 0; i < conditions.size(); ++i)
      out.line(0, names.conds[i] + " = " + conditions[i]);
  };
  if (plan.tail_function.temp >= 0) emit_tail_function(plan, names, out);
  if (conditions_first) emit_conditions();
  emit_assignments(*plan.root, names, out);
  if (!conditions_first) emit_conditions();
  std::vector<const Tree*> splits, leaves;
  collect_splits(*plan.root, splits, leaves);
  std::string conds;
  if (splits.size() == 1) {
    conds = names.conds[0];
  } else {
    conds = "(";
    for (size_t i = 0; i < splits.size(); ++i) conds += (i ? ", " : "") + names.conds[i];
    conds += ")";
  }
  bool all_safe = true;  // every check gradient_safe: where_ok refuses for no gradient
  auto check = [&](std::optional<std::string_view> var, int element = -1) {
    std::string text = context.runtime + ".where_ok(" + conds;
    bool safe = true;
    for (const Tree* leaf : leaves) {
      if (leaf->raises()) continue;
      text += ", " + (var ? leaf_value(*leaf, *var, names) : return_value(*leaf, names, element));
      safe = safe && gradient_safe_value(*leaf, var);
    }
    // training may select too: no side's gradient turns NaN through torch.where
    all_safe = all_safe && safe;
    return text + (safe ? ", gradient_safe=True)" : ")");
  };
  int arity = static_cast<int>(plan.return_arity);
  std::string test;
  if (plan.returns && arity > 0) {
    for (int i = 0; i < arity; ++i) test += (i ? " and " : "") + check(std::nullopt, i);
  } else if (plan.returns) {
    test = check(std::nullopt);
  } else {
    for (std::string_view var : plan.merge) {
      if (!test.empty()) test += " and ";
      test += check(var);
    }
  }
  // a branch that only records calls selects nothing: its conditions alone are checked
  if (test.empty()) test = context.runtime + ".record_ok(" + conds + ")";
  // a recorded call replays only after the compiled region: eagerly the original path runs
  if (plan.defers) test = context.runtime + ".is_compiling() and " + test;
  out.line(0, "if " + test + ":");
  emit_recorded_calls(plan, leaves, names, out);
  emit_guards(plan, context, leaves, names, out);
  if (plan.returns && arity > 0) {
    std::string values;
    for (int i = 0; i < arity; ++i)
      values += (i ? ", " : "") + where_expr(plan, *plan.root, std::nullopt, names, i);
    out.line(1, "return " + values);
  } else if (plan.returns) {
    out.line(1, "return " + where_expr(plan, *plan.root, std::nullopt, names));
  } else {
    for (std::string_view var : plan.merge)
      out.line(1, std::string(var) + " = " + where_expr(plan, *plan.root, var, names));
  }
  if (plan.cond.in_training && !all_safe) {
    // runtime.cond_ok holds where where_ok does not only for gradients: torch.cond over the
    // branches as written, which differentiates only the selected one
    std::string ok = test;
    for (size_t at = ok.find(".where_ok("); at != std::string::npos; at = ok.find(".where_ok(", at))
      ok.replace(at, 10, ".cond_ok(");
    out.line(0, "elif " + ok + ":");
    Emitter branches{std::string(), std::string()};
    emit_cond(cond_call(plan, names.conds[0]), context, names.true_function, names.false_function,
              branches);
    out.append(branches.take(), 1);
  }
  emit_fallback_chain(plan, *plan.root, names, 0, "elif", out);
}

// The submodules a torch.cond branch calls, as written (`self.expert`), first call first.
// torch.cond fails the compile (it does not break the graph) on a branch Dynamo cannot
// trace whole, and a submodule's class is only known at run time: runtime.cond_safe checks
// each while tracing.
std::vector<std::string> cond_submodules(const Context& context, const Plan& plan) {
  std::vector<std::string> found;
  auto visit = [&](const ast::Node* node) {
    if (const auto* call = ast::as<ast::Call>(node)) {
      if (context.analysis.resolve_call(*call).kind == sema::CalleeKind::SelfSubmodule) {
        std::string text(node_text(context, *call->func));
        if (std::find(found.begin(), found.end(), text) == found.end()) found.push_back(text);
      }
    }
    return true;
  };
  ast::walk(plan.statement, visit);
  for (const ast::stmt* s : plan.tail_statements) ast::walk(s, visit);
  ast::walk(plan.tail, visit);
  return found;
}

// Where the rewritten text ends in the source. A duplicated tail, when checked or under a
// static prefix, stays as written after the fallback statement (the rewritten part returns
// on every path); otherwise nothing falls back to it.
uint32_t edit_end(const Plan& plan, bool checked) {
  bool kept = plan.tail_function.temp >= 0 && (checked || !plan.static_prefix.empty());
  if (plan.tail == nullptr || kept) return plan.statement->end;
  return plan.tail->end;
}

bool is_checked(const Plan& plan, const std::vector<std::string>& submodules) {
  return !plan.checks.tensors.empty() || !plan.checks.floating.empty() ||
         !plan.checks.numbers.empty() || !plan.checks.ints.empty() || !plan.checks.flags.empty() ||
         !submodules.empty() || !plan.checks.masked_reads.empty() ||
         !plan.checks.preconditions.empty() || !plan.checks.methods.empty();
}

// `text` (the source from offset `begin`) with the calls the plan's leaves record in
// [Defer]'s plain form, as the fallback runs them (and as mending it again would make them).
std::string with_plain_deferrals(const Plan& plan, std::string_view text, uint32_t begin) {
  std::vector<const Tree*> splits, leaves;
  collect_splits(*plan.root, splits, leaves);
  std::vector<const where_detail::DeferredCall*> calls;
  for (const Tree* leaf : leaves)
    for (const where_detail::DeferredCall& call : leaf->deferred) calls.push_back(&call);
  std::sort(calls.begin(), calls.end(),
            [](auto* a, auto* b) { return a->call->begin > b->call->begin; });
  std::string out(text);
  for (const where_detail::DeferredCall* call : calls)
    out.replace(call->call->begin - begin, call->call->end - call->call->begin, call->plain);
  return out;
}

// `if <checks>: <rewritten> el<the original statement>`: the rewrite runs only where every
// value assumed to be a tensor is one, every submodule a torch.cond branch calls is one
// torch.cond traces (and the static prefix holds); anywhere else the original statement
// runs, as written.
void emit_checked(const Plan& plan, const Context& context,
                  const std::vector<std::string>& submodules, const std::string& cond_site,
                  Emitter& out) {
  std::vector<std::string> parts;
  if (!plan.checks.tensors.empty() || !plan.checks.floating.empty()) {
    std::string tensors = context.runtime + ".tensors(";
    for (size_t i = 0; i < plan.checks.tensors.size(); ++i)
      tensors += (i ? ", " : "") + plan.checks.tensors[i];
    parts.push_back(tensors + ")");
  }
  for (const auto& [function, values] : {std::pair{".python_ints(", &plan.checks.ints},
                                         std::pair{".python_numbers(", &plan.checks.numbers}}) {
    if (values->empty()) continue;
    std::string check = context.runtime + function;
    for (size_t i = 0; i < values->size(); ++i) check += (i ? ", " : "") + (*values)[i];
    parts.push_back(check + ")");
  }
  if (!plan.checks.flags.empty()) {
    std::string flags = context.runtime + ".python_flags(";
    for (size_t i = 0; i < plan.checks.flags.size(); ++i)
      flags += (i ? ", " : "") + plan.checks.flags[i];
    parts.push_back(flags + ")");
  }
  for (const std::string& tensor : plan.checks.floating)
    parts.push_back(tensor + ".is_floating_point()");
  for (const sema::SameMethod& method : plan.checks.methods)
    parts.push_back(context.runtime + ".same_method(" + method.receiver + ", \"" + method.name +
                    "\", " + method.owner + "." + method.name + ")");
  // after the type checks, which make evaluating them safe
  parts.insert(parts.end(), plan.checks.preconditions.begin(), plan.checks.preconditions.end());
  // a masked read's check reads the conditions as written: their temps come after it
  std::vector<std::string> conditions = condition_texts(plan);
  for (const std::string& read : plan.checks.masked_reads)
    parts.push_back(context.runtime + ".index_where_ok(" + resolve(read, {}, conditions) + ")");
  if (!submodules.empty()) {
    std::string safe = context.runtime + ".cond_safe(";
    for (size_t i = 0; i < submodules.size(); ++i) safe += (i ? ", " : "") + submodules[i];
    parts.push_back(safe + ")");
  }
  // last: it lets the site through only where Dynamo will trace its torch.cond
  if (!cond_site.empty()) parts.push_back(cond_site);
  std::string check;
  for (size_t i = 0; i < parts.size(); ++i) check += (i ? " and " : "") + parts[i];
  if (!plan.static_prefix.empty()) {
    bool bare =
        plan.static_operands.size() == 1 && ast::is_condition_operand(plan.static_operands[0]);
    check = parts.empty()
                ? plan.static_prefix
                : (bare ? plan.static_prefix : "(" + plan.static_prefix + ")") + " and " + check;
  }
  auto body = out.take();
  out.line(0, "if " + check + ":");
  out.append(body, 1);
  const ast::stmt& statement = *plan.statement;
  uint32_t end = edit_end(plan, true);
  std::string original = with_plain_deferrals(
      plan, context.source.text().substr(statement.begin, end - statement.begin), statement.begin);
  if (plan.condition_if != nullptr) {
    out.raw("el" + original);
  } else {
    // an assignment or return: its first line moves one level in; any further lines are
    // inside brackets, a backslash continuation or a string, where indentation is not read
    out.line(0, "else:");
    out.line(1, original);
  }
}

std::string line_of(const Context& context, uint32_t offset) {
  return std::to_string(context.source.line_col(offset).line);
}

}  // namespace

// The enclosing predicated `if` rewrites this one as part of its tree.
Outcome where_detail::covered(const Context& context, const ast::If& cover) {
  Outcome outcome;
  outcome.fixed = true;
  outcome.reason = "predicated with the enclosing if at line " + line_of(context, cover.begin);
  return outcome;
}

// The text of a plan that no enclosing if covers.
Outcome where_detail::emit_plan(const Plan& plan, Context& context) {
  Outcome outcome;
  const ast::stmt& statement = *plan.statement;
  std::string indent = indentation_of(context, statement);
  Emitter out(indent, plan.condition_if != nullptr
                          ? where_detail::indent_unit(context, *plan.condition_if, indent)
                          : std::string("    "));

  // torch.cond fails the compile where Dynamo cannot trace a branch: runtime.cond_on lets
  // the site through until Dynamo has failed on it once, then the original statement runs
  std::string cond_site;
  if (plan.cond.use) {
    outcome.form = "cond";
    std::string true_name = context.fresh_name("true_");
    std::string false_name = context.fresh_name("false_");
    emit_cond(cond_call(plan, plan.root->cond_tensor), context, true_name, false_name, out);
    cond_site = context.runtime + ".cond_on(\"" + true_name + "\", \"" + false_name + "\")";
  } else {
    Names names;
    for (int i = 0; i < plan.temp_count; ++i)
      names.temps.push_back(context.fresh_name(i == plan.tail_function.temp ? "tail_" : "t"));
    for (int i = 0; i < plan.split_count; ++i) names.conds.push_back(context.fresh_name("c"));
    if (plan.cond.in_training) {
      names.true_function = context.fresh_name("true_");
      names.false_function = context.fresh_name("false_");
    }
    emit_where(plan, context, names, out);
  }

  std::vector<std::string> submodules =
      plan.cond.use ? cond_submodules(context, plan) : std::vector<std::string>{};
  // under `flags or t` the original runs where a flag holds: the checked form's fallback
  bool checked = is_checked(plan, submodules) || !cond_site.empty() || plan.static_disjunction;
  if (checked) {
    emit_checked(plan, context, submodules, cond_site, out);
  } else if (!plan.static_prefix.empty()) {
    // `if <static> and <tensor>:` keeps a Python `if` on the static part around the
    // predicated code; the original else branch runs when the static part is false.
    auto body = out.take();
    out.line(0, "if " + plan.static_prefix + ":");
    out.append(body, 1);
    const ast::Seq<ast::stmt*>& orelse = plan.condition_if->orelse;
    if (!orelse.empty()) {
      const ast::stmt& first = *orelse[0];
      const ast::stmt& last = *orelse[orelse.size - 1];
      std::string_view all = context.source.text();
      if (orelse.size == 1 && written_as_elif(context, first)) {
        out.raw(all.substr(first.begin, first.end - first.begin));
      } else {
        uint32_t line_begin = context.source.line_start(context.source.line_col(first.begin).line);
        std::string_view lead = all.substr(line_begin, first.begin - line_begin);
        bool own_line = lead.find_first_not_of(" \t\f") == std::string_view::npos;
        if (own_line) {
          out.raw("else:\n" + std::string(all.substr(line_begin, last.end - line_begin)));
        } else {
          out.raw("else: " + std::string(all.substr(first.begin, last.end - first.begin)));
        }
      }
    }
    if (plan.tail != nullptr && plan.tail_function.temp < 0) {
      uint32_t begin =
          plan.tail_statements.empty() ? plan.tail->begin : plan.tail_statements[0]->begin;
      out.raw(context.source.text().substr(begin, plan.tail->end - begin));
    }
  }

  uint32_t end = edit_end(plan, checked);
  outcome.edits.push_back(TextEdit{statement.begin, end, out.text()});
  outcome.fixed = true;
  outcome.needs_runtime = true;
  // the calls the branch records are fixed with it ([Defer] leaves them alone)
  std::vector<const Tree*> splits, leaves;
  collect_splits(*plan.root, splits, leaves);
  for (const Tree* leaf : leaves)
    for (const where_detail::DeferredCall& call : leaf->deferred) {
      outcome.absorbed.push_back(call.call);
      outcome.absorbed.insert(outcome.absorbed.end(), call.converted.begin(), call.converted.end());
    }
  return outcome;
}

}  // namespace graphmend::rewrite

namespace graphmend::rewrite::where_detail {

// One indentation step as the source writes it (the body's extra indentation), else 4 spaces.
std::string indent_unit(const Context& context, const ast::If& statement, const std::string& base) {
  if (!statement.body.empty()) {
    const ast::stmt& first = *statement.body[0];
    LineCol here = context.source.line_col(first.begin);
    LineCol head = context.source.line_col(statement.begin);
    if (here.line != head.line) {
      std::string inner = indentation_of(context, first);
      if (inner.size() > base.size() && inner.compare(0, base.size(), base) == 0)
        return inner.substr(base.size());
    }
  }
  return "    ";
}

}  // namespace graphmend::rewrite::where_detail
