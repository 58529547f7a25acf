// [Where] planning, inside: the Planner that builds a branch's decision tree and the helpers
// its stages share: locate.cpp (the statement and its condition), tree.cpp (the tree),
// plan.cpp (the plan's checks), cond_plan.cpp (the torch.cond form), tail.cpp and
// tail_plan.cpp (tail duplication) and masked_read.cpp (reads by a computed index). Not for use
// outside src/rewrite/where/.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ast/path.h"
#include "rewrite/where/plan.h"
#include "sema/binding.h"

namespace graphmend::rewrite::where_detail {

// The statement's place (ast/path.h) and what is bound there (sema/binding.h).
using ast::BlockRef;
using ast::find_path;
using sema::definitely_bound;

// ---------------------------------------------------------------------------------------
// Expression scans (scan.cpp).

// Whether the last statement before the one at the end of `path` that binds `var`, in the
// same block, assigns it a Python number (`variance = 0`).
bool number_before(const Context& context, const std::vector<BlockRef>& path, std::string_view var);
bool contains_kind(const ast::Node* node, std::initializer_list<ast::Kind> kinds);
bool uses_scalar(const ast::Node* node);
bool condition_uses_scalar(const ast::Node* node);
size_t tuple_arity(const ast::expr& e);
std::vector<const ast::expr*> condition_leaves(const ast::expr& e);
const ast::expr* number_literal(const ast::expr* e);
// True, False, None or a number literal (number_literal).
bool is_python_constant(const ast::expr& e);
// `name.attr = value`, one target: a store the planner merges as a variable named by its
// text (`self.x_min`), since every branch stores it; its target, else null.
const ast::Attribute* attribute_store(const ast::stmt& s);
// Why an in-place call in a branch is left to torch.cond (Planner::add_in_place_call): the
// reason of the passes before it, replaced by that pass's own (plan_statement).
inline constexpr std::string_view kInPlaceOnCopies =
    "torch.cond changes a copy only of a tensor the function made and holds alone";
// Whether a merged variable is such an attribute (its name holds a dot).
bool is_attribute_var(std::string_view var);
// Whether `body` (nested ifs included) of the if `node` mutates state otherwise than by such
// stores and by in-place calls on names that hold a tensor only they hold
// (sema::is_fresh_in_place_target: torch.cond changes a copy).
bool mutates_beyond_attribute_stores(const Context& context, const ast::If& node,
                                     const ast::Seq<ast::stmt*>& body);
std::string short_text(std::string_view text);
std::string parenthesize_multiline(std::string text);

// The first subscript in `nodes`, outside raise statements, by an index rather than slices
// (`y[idx]`): it may raise IndexError, which sema's purity allows. Where a branch raises,
// the rewrite computes the other branches' values ahead of its guard, and compiled, Dynamo
// raises such an error while tracing, ahead of every guard; the original raises first and
// never indexes. (Slices clamp their bounds: they do not raise.)
const ast::expr* first_index(const std::vector<const ast::Node*>& nodes);

// masked_read.cpp
const ast::Subscript* computed_index(const ast::Node* node);
Problem computed_index_reason(const Context& context, const ast::Subscript& index);

// ---------------------------------------------------------------------------------------
// The planner: builds the tree of a branch (tree.cpp), checks the tail on each side
// (tail.cpp) and plans the reads by a computed index (masked_read.cpp).

class Planner {
 public:
  explicit Planner(const Context& context) : context_(context), analysis_(context.analysis) {}

  Problem error;
  int temps = 0;
  int splits = 0;
  bool expensive = false;
  // whether a branch may call a helper only Dynamo's trace shows torch.cond can trace (a
  // static if, a loop, a validation): tried after every other plan
  bool traced_helpers = false;
  const ast::If* root = nullptr;  // the if planned (an in-place call's target is checked there)
  // A branch changes a copy of a tensor (add_in_place_call): with grad mode on, torch.cond's
  // output would require grad where the side taken gives one that does not.
  bool changes_copies = false;
  // a branch value calls a helper that is pure but that torch.cond cannot trace as written
  // (a validation, static ifs): torch.where only, never torch.cond in training
  bool pure_helper = false;
  // `return B` ending the block after the if, and the statements before it there: folded
  // into every branch that does not return (the rest of the block is the if's else).
  const ast::Return* tail = nullptr;
  std::vector<const ast::stmt*> tail_statements;
  // Facts of the static condition prefix (floating dtypes), for branch-value purity.
  sema::PurityFacts prefix_facts;

  bool build_body(const ast::Seq<ast::stmt*>& body, Tree& tree);
  bool add_deferred_call(const ast::Expr& statement, Tree& tree);
  bool add_in_place_call(const ast::Expr& statement, const ast::Name& target, Tree& tree);
  bool recordable_argument(const ast::expr& argument) const;
  // `converted`, where given, gets the `t.item()` arguments it converts at the replay.
  std::optional<std::string> deferred_text(const sema::BreakTag& tag, std::string_view condition,
                                           std::vector<const ast::Node*>* converted = nullptr);
  bool build_split(const std::vector<const ast::expr*>& operands, const ast::Seq<ast::stmt*>& body,
                   const ast::Seq<ast::stmt*>& orelse, Tree& tree);
  bool build_conditional(const ast::IfExp& e, std::string_view var, Tree& tree);
  static void set_paths(Tree& tree);
  bool set_condition(const std::vector<const ast::expr*>& operands, Tree& tree);
  bool once_condition(const std::vector<const ast::expr*>& operands, const ast::expr& leaf);

  std::string torch_;
  sema::Speculation* speculation = nullptr;  // active while planning, or null
  // The arguments of each runtime.index_where the branch values call (see Plan), and the
  // first subscript read so.
  std::vector<std::string> masked_reads;
  const ast::Subscript* first_masked = nullptr;

  // Tail duplication: a static `if` in a branch (the `elif flag:` of a branch whose static
  // prefix is `x is not None`) is computed on both of its sides, and each variable they
  // assign is selected by a conditional expression on the test, which is static under
  // Dynamo: a Python number stays a number.
  bool static_ifs = false;
  std::vector<std::string> flag_checks;  // the flags those tests read (RunTimeChecks::flags)
  // the flags they order against a number (RunTimeChecks::numbers)
  std::vector<std::string> number_flag_checks;
  // A static if's sides are selected by temps: no torch.cond of the branches.
  bool met_static_if = false;
  // Assignment::gradient_safe of `value` assigned in `tree` (tree.cpp).
  bool gradient_safe(const ast::expr& value, const Tree& tree) const;

  void focus(const Tree& tree);

  // ---- Tail duplication: the tail (the statements after the rewritten one, up to the
  // function's return) computed on each side with that side's values.

  // What one side holds while its tail is checked.
  struct Side {
    std::vector<std::string_view> local;    // names assigned on this side so far
    std::vector<std::string_view> derived;  // of those, the ones holding tensors
    std::vector<std::string> numeric;       // names holding Python numbers
    // names holding a literal (True, False, None, a number): a test of one is static there
    std::vector<std::string_view> constants;
  };
  // Static tests in the tail assumed to take the side that both can compute (the other
  // side's statements are not pure), as Python tests checked before the statement.
  std::vector<std::string> tail_preconditions;

  // Subexpressions evaluated once before both tails (PurityFacts::opaque).
  std::vector<const ast::expr*> hoisted;
  const ast::Return* final_return = nullptr;

  // Both sides compute the tail: a longer one doubles more work than a graph break costs
  // (docs/MENDER.md, "Tail duplication").
  static constexpr int kMaxTailStatements = 12;

  // tail.cpp
  void hoist(const ast::expr* e, const std::set<std::string_view>& assigned);
  bool side_block(const ast::Seq<ast::stmt*>& body, uint32_t from, Side& side, int& count);

 private:
  bool pure_as_written(const ast::expr& e) const;

  // tail.cpp
  void focus_side(const Side& side);
  sema::PurityFacts side_facts(const Side& side) const;
  bool side_value(const ast::expr& value, const Side& side);
  void side_assign(std::string_view var, const ast::expr& value, Side& side);
  bool side_test(const ast::expr& test, const Side& side);
  bool side_statement(const ast::stmt& s, Side& side, int& count);
  bool side_assignment(const ast::stmt& s, Side& side);
  bool side_return(const ast::stmt& s, const Side& side);
  bool side_if(const ast::If& n, Side& side, int& count);
  bool side_static_if(const ast::If& n, Side& side, int& count);
  bool test_checkable_before(const ast::expr& test, const Side& side) const;
  bool static_as_written(const ast::expr& test) const;

  bool fail(Reason reason, std::string detail);
  bool fail(Problem problem);
  bool build_statement(const ast::stmt& s, bool last, Tree& tree);
  bool build_assignment(const ast::stmt& s, Tree& tree);
  bool build_unpacking(const ast::Tuple& names, const ast::expr& value, Tree& tree);
  bool reads_stored_attribute(const ast::stmt& s, const Tree& tree);
  bool build_nested_if(const ast::If& n, bool last, Tree& tree);
  bool assumed_flags(const ast::expr& test) const;
  static std::unique_ptr<Tree> static_side(const Tree& tree);
  bool kept_number(const ast::If& n, std::string_view var, Tree& tree);
  bool build_static_if(const ast::If& n, Tree& tree);
  bool check_static_test(const ast::If& n, const Tree& tree);
  bool merge_static_side(Tree& side, Tree& tree, std::vector<std::string_view>& vars);
  void select_static_value(const ast::If& n, std::string_view var, const std::string& test,
                           const std::unique_ptr<Tree> (&sides)[2], Tree& tree);
  bool check_value(const ast::expr& value, const Tree& tree,
                   std::vector<const ast::Subscript*>& masked);

  // masked_read.cpp
  bool find_masked(const ast::expr& value, const Tree& tree, sema::PurityFacts& facts);
  std::string masked_read(const ast::Subscript& sub, const Tree& tree);

  // cond_plan.cpp
  bool calls_expensive(const ast::expr& e) const;
  bool local_function_is_cond_traceable(const sema::Callee& callee, const ast::Call& call,
                                        int depth = 0) const;
  bool traceable_calls(const ast::stmt& statement, int depth) const;
  bool tests_tensor(const ast::Node& n) const;
  bool tensor_test(const ast::expr& test) const;
  void note_helper_locals(const ast::stmt& statement, sema::Speculation& inside) const;
  bool parameters_passed_tensors(const ast::FunctionDef& def, const ast::Call& call,
                                 const std::vector<const ast::expr*>& assumed) const;
  bool cond_eligible(const ast::expr& e) const;
  bool cond_eligible_when_traced(const ast::expr& e) const;

  std::optional<std::string> renamed(const ast::expr& value, const Tree& tree,
                                     const std::vector<const ast::Subscript*>& masked);
  void note_free_reads(const ast::expr& value, Tree& tree);
  void note_reads(const ast::expr& value, Tree& tree);
  sema::PurityFacts facts_of(const Tree& tree) const;
  bool add_assignment(std::string_view var, const ast::expr& value, Tree& tree);
  bool add_return(const ast::expr& value, Tree& tree);
  std::optional<std::string> value_text(const ast::expr& value, Tree& tree);
  bool add_raise(const ast::Raise& raise, bool last, Tree& tree);

  const Context& context_;
  const sema::Analysis& analysis_;
  // Set while cond_eligible_when_traced asks: a helper with control flow, validations or
  // builtin calls is accepted, Dynamo's trace of the torch.cond being the check.
  mutable bool trace_checked_ = false;
};

// ---------------------------------------------------------------------------------------
// The tree's leaves (tree.cpp).

void leaves_of(Tree& tree, std::vector<Tree*>& out);
void merge_order(const Tree& tree, std::vector<std::string_view>& out);

// ---------------------------------------------------------------------------------------
// Locating the statement (locate.cpp).

bool is_where_ok_test(const Context& context, const ast::expr* test);
Problem check_statement(const Context& context, const ast::stmt& statement,
                        std::vector<BlockRef>& path);
// The enclosing data-dependent if, predicated with torch.where, whose branch ends with
// `path`'s statement, as the text shows it (no speculation), or null.
const ast::If* covering_if(const Context& context, const std::vector<BlockRef>& path);

// The condition split into a static prefix of an `and` chain, which stays a Python `if`,
// and the tensor operands that are predicated.
struct Condition {
  std::vector<const ast::expr*> operands;
  std::vector<const ast::expr*> static_operands;
  std::string prefix;
  bool disjunction = false;  // `flags or t`: the prefix is `not (flags)`
};

Problem split_condition(const Context& context, const ast::If& node, Condition& condition,
                        bool else_ifs = false);

// ---------------------------------------------------------------------------------------
// The whole plan's checks (plan.cpp).

Problem reads_bound(const Context& context, const ast::stmt& node,
                    const std::vector<BlockRef>& path, const std::vector<Tree*>& leaves);
Problem check_static_prefix(const Context& context, const Plan& plan);

// ---------------------------------------------------------------------------------------
// The torch.cond form (cond_plan.cpp).

// Whether a torch.cond branch must copy `value` before returning it (Tree::alias).
bool may_alias_input(const Context& context, const ast::expr& value);
// `value` as a torch.cond branch returns it, copied where it may alias an input.
std::string unaliased(const Context& context, const ast::expr& value);
// torch.cond's operands (CondForm::operands), and each leaf's cond.returns; a reason when the
// branches read a local torch.cond cannot pass.
Problem cond_operands(const Context& context, const std::vector<BlockRef>& path,
                      const std::vector<Tree*>& leaves, Plan& plan);
// The torch.cond form of `plan` (CondForm::use), or why not.
Problem plan_cond(const Context& context, const std::vector<BlockRef>& path,
                  const std::vector<Tree*>& leaves, Plan& plan);

// masked_read.cpp
Problem check_masked_reads(const Context& context, const Planner& planner, const Plan& plan);

// What the text shows first; failing that, the same with the values whose type it cannot
// show assumed to be tensors, then also the parameters declared numbers assumed to be
// numbers (`min(top_k, n)` cannot raise then), checked at run time (sema::Speculation).
template <class PlanOnce>
PlanResult plan_speculating(const Context& context, const ast::stmt& statement,
                            const PlanOnce& plan_once) {
  PlanResult shown = plan_once(nullptr);
  if (shown.plan) return shown;
  sema::Speculation speculation;
  speculation.site = &statement;
  sema::Speculation* before = context.analysis.speculate(&speculation);
  PlanResult assumed = plan_once(&speculation);
  // a value read as a Python flag and assumed a tensor: no input passes both checks
  auto contradicts = [&](const PlanResult& result) {
    if (!result.plan) return false;
    const std::vector<std::string>& flags = result.plan->checks.flags;
    for (const ast::expr* value : speculation.assumed)
      if (std::find(flags.begin(), flags.end(), node_text(context, *value)) != flags.end())
        return true;
    return false;
  };
  if (contradicts(assumed))
    assumed = {{}, {Reason::NotTensor, "a value read as a flag would be assumed a tensor too"}};
  if (!assumed.plan && !speculation.assume_numbers) {
    speculation = sema::Speculation{};
    speculation.site = &statement;
    speculation.assume_numbers = true;
    if (PlanResult numbers = plan_once(&speculation); numbers.plan) assumed = std::move(numbers);
  }
  context.analysis.speculate(before);
  if (!assumed.plan ||
      (speculation.assumed.empty() && speculation.floating.empty() && speculation.numbers.empty() &&
       speculation.preconditions.empty() && speculation.methods.empty()))
    return assumed;
  if (Problem why = check_static_prefix(context, *assumed.plan); !why.empty()) {
    assumed.plan.reset();
    assumed.reason = why;
    return assumed;
  }
  for (const ast::expr* value : speculation.assumed)
    assumed.plan->checks.tensors.emplace_back(node_text(context, *value));
  for (const ast::expr* value : speculation.floating)
    assumed.plan->checks.floating.emplace_back(node_text(context, *value));
  const auto& integers = speculation.integers;
  for (const ast::expr* value : speculation.numbers)
    (std::find(integers.begin(), integers.end(), value) != integers.end()
         ? assumed.plan->checks.ints
         : assumed.plan->checks.numbers)
        .emplace_back(node_text(context, *value));
  auto& preconditions = assumed.plan->checks.preconditions;
  for (const std::string& test : speculation.preconditions)
    if (std::find(preconditions.begin(), preconditions.end(), test) == preconditions.end())
      preconditions.push_back(test);
  assumed.plan->checks.methods = speculation.methods;
  return assumed;
}

// tail_plan.cpp
PlanResult plan_tail(const Context& context, const ast::stmt& statement,
                     const ast::IfExp* conditional);

}  // namespace graphmend::rewrite::where_detail
