// [Where] planning: decides whether a data-dependent `if` can be predicated and builds the
// decision tree that emit.cpp turns into text. Planning has no side effects on the
// Context (temporaries are numbered locally and named only when the rewrite is emitted),
// so it can also be run on an enclosing `if` to see whether that one covers a nested tag.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rewrite/cond/cond.h"
#include "rewrite/rewrite.h"

namespace graphmend::rewrite::where_detail {

// Why a statement is not planned (reasons.def); empty when nothing is wrong.
using reasons::Problem;
using reasons::Reason;

// Temp placeholders in planned value text: kTempOpen <id> kTempClose.
inline constexpr char kTempOpen = '\x01';
inline constexpr char kTempClose = '\x02';
// Condition placeholders (a split's condition): kCondOpen <split id> kCondClose.
inline constexpr char kCondOpen = '\x03';
inline constexpr char kCondClose = '\x04';

struct Assignment {
  std::string_view var;
  int temp = 0;
  std::string value;  // source text of the value, names assigned earlier as placeholders
  // True, False, None or a number literal: a Python value torch.where never selects
  bool python_constant = false;
  // Every local derivative of the value is finite wherever it is defined (a clamp, a
  // relu, an identity, a sum of such values): the zero gradient torch.where sends into an
  // unselected one stays zero, never NaN (Planner::gradient_safe)
  bool gradient_safe = false;
};

// Where a deferred call's recorded form takes the condition of its branch's path.
inline constexpr std::string_view kPathCondition = "\x05";

// A print, logging or warnings call in a branch, which [Defer] records: with the branch's
// condition where the branch is predicated (runtime.defer_when(<kPathCondition>, ...)), and
// unconditionally on the original path (runtime.defer(...)).
struct DeferredCall {
  const ast::Call* call = nullptr;
  std::string recorded;
  std::string plain;
  std::string indent;  // the statement's indentation, which its further lines start with
  std::vector<const ast::Node*> converted;  // its `t.item()` arguments, converted at the replay
  // The tests of the static ifs it sits under in its branch (`(test)` or `not (test)`):
  // flags, evaluated where it is recorded or run, as the original evaluates them.
  std::vector<std::string> static_tests;
};

// The `raise` ending a raising leaf: as written (the fallback runs it) and as [Trap]'s guard
// around the leaf's path condition (`<runtime><guard_function><path><guard_arguments>`).
struct RaisingArm {
  std::string written;
  std::string indent;  // the statement's indentation, which its further lines start with
  std::string guard_function;
  std::string guard_arguments;
  // The names its message reads: the guard's message function reads them as free variables.
  std::vector<std::string_view> message_reads;
};

// A branch: assignments, then either a final value (leaf) or a split on a nested condition.
// A raising leaf gives no value: its arm ends in `raise`.
struct Tree {
  std::vector<Assignment> assigns;
  std::map<std::string_view, int> env;       // variable -> temp holding its value here
  std::vector<std::string> numeric;          // variables holding side-effect-free Python numbers
  std::vector<std::string_view> derived;     // under a speculation: variables holding tensors
  std::vector<std::string_view> free_reads;  // names read before the path assigns them
  std::optional<int> returned;               // leaf ending in `return`: the temp of its value
  size_t returned_arity = 0;                 // it returns a tuple display of this many values
  std::vector<std::pair<int, bool>> path;    // the splits above this node, and the side taken
  std::vector<DeferredCall> deferred;        // the calls it records, in order
  std::optional<RaisingArm> raise;           // a raising leaf's raise

  int split_id = -1;        // >= 0: this node branches on cond_tensor
  std::string cond_tensor;  // the condition as a tensor expression
  std::string cond_python;  // the condition as written (for the fallback branch)
  // The root's condition is impure (it draws random numbers, say): the rewrite evaluates it
  // once, first, as the original does, and the fallback tests its temp, not the text.
  bool evaluated_once = false;
  std::unique_ptr<Tree> on_true;
  std::unique_ptr<Tree> on_false;

  // torch.cond form of a leaf: its statements as written and what its function returns.
  CondBranch cond;
  std::vector<std::pair<std::string_view, const ast::Name*>> reads;  // free names read
  std::vector<std::string_view> assigned;
  // variable -> torch.cond's branch copies its last value (may_alias_input)
  std::map<std::string_view, bool> alias;
  // variable -> its last value may be an existing tensor or a view of one (may_alias)
  std::map<std::string_view, bool> shares;
  // attribute -> the name its last store reads (`self.mean = batch_mean`), or none
  std::map<std::string_view, const ast::Name*> stored_name;

  bool is_split() const { return split_id >= 0; }
  // The assignment of temp `temp` here, or null.
  const Assignment* assignment(int temp) const {
    for (const Assignment& a : assigns)
      if (a.temp == temp) return &a;
    return nullptr;
  }
  bool raises() const { return raise.has_value(); }
};

// Whether every leaf under `tree` raises: it gives no value.
bool only_raises(const Tree& tree);

// The torch.cond form of a plan: the whole statement (use), or the branches as written
// where runtime.where_ok refuses in training (in_training, through runtime.cond_ok).
struct CondForm {
  bool use = false;                   // torch.cond instead of torch.where
  bool in_training = false;           // and torch.cond where where_ok refuses (runtime.cond_ok)
  std::vector<std::string> operands;  // torch.cond operands (tensor locals read)
};

// Tail duplication (plan_statement/plan_conditional when a branch value is a Python
// number): the statements from the rewritten one's end to the function's final return form
// a nested function (named by temp `temp`) that every leaf calls with its own values, and
// the leaves return what it returns.
struct TailFunction {
  int temp = -1;
  std::vector<std::pair<int, std::string>> body;  // its lines: (level, text with temps)
  std::string params;
};

// What a checked rewrite tests at run time before its predicated code; the original
// statement runs when a test fails.
struct RunTimeChecks {
  // Values assumed to be tensors (sema::Speculation), as written: runtime.tensors(...).
  std::vector<std::string> tensors;
  std::vector<std::string> floating;  // tensors whose dtype must be floating
  std::vector<std::string> numbers;   // values assumed Python numbers
  std::vector<std::string> ints;      // values assumed Python ints (declared int)
  std::vector<std::string> flags;     // flags tested on both sides (runtime.python_flags)
  // tests under which the helpers a value calls cannot raise (Speculation::preconditions)
  std::vector<std::string> preconditions;
  std::vector<sema::SameMethod> methods;  // methods it computes as written (runtime.same_method)
  // The arguments of each subscript by a computed index read ahead of its branch
  // (runtime.index_where), with condition placeholders: runtime.index_where_ok(<arguments>).
  std::vector<std::string> masked_reads;
};

struct Plan {
  // The rewritten statement: condition_if, or an assignment or return whose value is a
  // conditional expression.
  const ast::stmt* statement = nullptr;
  const ast::If* condition_if = nullptr;
  const ast::If* covered_by = nullptr;  // an enclosing predicated if rewrites this one
  std::string torch;                    // the module's name for torch
  bool returns = false;                 // every leaf returns (else: assignments merge)
  std::vector<std::string_view> merge;  // variables assigned and live after
  std::unique_ptr<Tree> root;
  int temp_count = 0;
  int split_count = 0;
  std::string static_prefix;                      // Python condition kept as an `if` around it
  std::vector<const ast::expr*> static_operands;  // the static prefix's operands
  bool static_disjunction = false;    // `flags or t`: where a flag holds, the original runs
  const ast::Return* tail = nullptr;  // `return B` ending the block, folded in as the if's else
  std::vector<const ast::stmt*> tail_statements;  // the assignments before it after the if
  size_t return_arity = 0;  // the return value is a tuple display of this many values
  bool defers = false;      // a leaf records calls: predicated only while compiling

  CondForm cond;
  TailFunction tail_function;
  RunTimeChecks checks;
};

struct PlanResult {
  std::optional<Plan> plan;
  Problem reason;  // when plan is empty: why not
};

// Why `statement` is not an if a rewrite may predicate (a while loop, the fallback branch
// of an if already predicated, ...), or empty.
Problem check_unpredicated(const Context& context, const ast::stmt& statement);

// A conditional expression inside an expression, written `runtime.select(c, lambda: a,
// lambda: b)` in place (select.cpp); a decline when a value is not pure.
std::optional<Outcome> rewrite_inline_conditional(Context& context, const ast::stmt& statement,
                                                  const ast::IfExp& e);

PlanResult plan_statement(const Context& context, const ast::stmt& statement,
                          bool check_enclosing = true);
// The enclosing data-dependent if predicated with torch.where whose tree holds `statement`
// (it ends that if's branch), or null.
const ast::If* enclosing_predicated_if(const Context& context, const ast::stmt& statement);
// `y = A if C else B` / `return A if C else B` (`e` is the statement's value).
PlanResult plan_conditional(const Context& context, const ast::stmt& statement,
                            const ast::IfExp& e);

}  // namespace graphmend::rewrite::where_detail
