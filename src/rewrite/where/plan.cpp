// [Where] planning (see plan.h): shape checks, purity, merge set, decision tree. Tail
// duplication is in tail.cpp, reads by a computed index in masked_read.cpp.
#include "rewrite/where/plan.h"

#include <algorithm>
#include <set>

#include "ast/walk.h"
#include "rewrite/defer/defer.h"
#include "rewrite/edits.h"
#include "rewrite/where/planner.h"
#include "sema/torch_facts.h"

namespace graphmend::rewrite::where_detail {

using ast::Kind;

// ---------------------------------------------------------------------------------------
// Finding the statement: the chain of statement lists from the module down to it.

namespace {

std::vector<const ast::Seq<ast::stmt*>*> child_blocks(const ast::stmt& s) {
  std::vector<const ast::Seq<ast::stmt*>*> out;
  ast::for_each_body(&s, [&](const ast::Seq<ast::stmt*>& block) { out.push_back(&block); });
  return out;
}

}  // namespace

bool find_path(const ast::Seq<ast::stmt*>& block, const ast::stmt* owner, const ast::stmt* target,
               std::vector<BlockRef>& path) {
  for (uint32_t i = 0; i < block.size; ++i) {
    const ast::stmt* s = block[i];
    if (s == nullptr || target->begin < s->begin || target->end > s->end) continue;
    path.push_back({&block, i, owner});
    if (s == target) return true;
    for (const auto* child : child_blocks(*s))
      if (find_path(*child, s, target, path)) return true;
    path.pop_back();
  }
  return false;
}

// ---------------------------------------------------------------------------------------
// Expression scans.

bool contains_kind(const ast::Node* node, std::initializer_list<Kind> kinds) {
  return ast::contains(node, [&](const ast::Node* n) {
    return std::find(kinds.begin(), kinds.end(), n->kind) != kinds.end();
  });
}

// `.item()` / `.tolist()` anywhere in `node`.
bool uses_scalar(const ast::Node* node) {
  return ast::contains(node, [](const ast::Node* n) {
    const auto* call = ast::as<ast::Call>(n);
    const auto* attr = call ? ast::as<ast::Attribute>(call->func) : nullptr;
    return attr && (attr->attr == "item" || attr->attr == "tolist");
  });
}

// `.item()` / `.tolist()` in a condition other than as a direct operand of one comparison
// (`X.item() < y`, which tensor_condition compares in the graph).
bool condition_uses_scalar(const ast::Node* node) {
  std::vector<const ast::Node*> compared;
  bool found = false;
  auto visit = [&](const ast::Node* n) {
    if (auto* compare = ast::as<ast::Compare>(n); compare && compare->ops.size == 1) {
      compared.push_back(compare->left);
      compared.push_back(compare->comparators[0]);
    }
    if (auto* call = ast::as<ast::Call>(n))
      if (auto* attr = ast::as<ast::Attribute>(call->func))
        if ((attr->attr == "item" || attr->attr == "tolist") &&
            (attr->attr == "tolist" || !call->args.empty() ||
             std::find(compared.begin(), compared.end(), n) == compared.end()))
          found = true;
    return !found;
  };
  ast::walk(node, visit);
  return found;
}

namespace {

// The names in `node` used as `context` (read, bound), in source order.
std::vector<const ast::Name*> names_used(const ast::Node* node, ast::ExprContext context) {
  std::vector<const ast::Name*> out;
  auto visit = [&](const ast::Node* n) {
    if (auto* name = ast::as<ast::Name>(n))
      if (name->ctx == context) out.push_back(name);
    return true;
  };
  ast::walk(node, visit);
  return out;
}

std::vector<const ast::Name*> stores(const ast::Node* node) {
  return names_used(node, ast::ExprContext::Store);
}

// The parameter of `def` called `name`, or null.
const ast::arg* parameter_named(const ast::FunctionDef& def, std::string_view name) {
  for (const auto* list : {&def.args->posonlyargs, &def.args->args, &def.args->kwonlyargs})
    for (const ast::arg* param : *list)
      if (param->arg == name) return param;
  return nullptr;
}

bool is_staticmethod(const ast::FunctionDef& def) {
  for (const ast::expr* decorator : def.decorator_list)
    if (const auto* name = ast::as<ast::Name>(decorator); name && name->id == "staticmethod")
      return true;
  return false;
}

// The name an attribute chain starts from (`self` in `self.lin.weight`), or empty.
std::string_view root_name(const ast::expr& e) {
  const ast::expr* root = &e;
  while (const auto* attribute = ast::as<ast::Attribute>(root)) root = attribute->value;
  const auto* name = ast::as<ast::Name>(root);
  return name != nullptr ? name->id : std::string_view();
}

}  // namespace

// The number of values of a tuple display without `*` (`a, b`), else 0.
size_t tuple_arity(const ast::expr& e) {
  const auto* tuple = ast::as<ast::Tuple>(&e);
  return tuple != nullptr && !contains_kind(tuple, {Kind::Starred}) ? tuple->elts.size : 0;
}

// Names read (Load) in `node`, in source order.
std::vector<const ast::Name*> loads(const ast::Node* node) {
  return names_used(node, ast::ExprContext::Load);
}

// The operands of a condition below its `and`/`or`/`not`.
std::vector<const ast::expr*> condition_leaves(const ast::expr& e) {
  if (auto* op = ast::as<ast::BoolOp>(&e)) {
    std::vector<const ast::expr*> out;
    for (auto* value : op->values) {
      auto inner = condition_leaves(*value);
      out.insert(out.end(), inner.begin(), inner.end());
    }
    return out;
  }
  if (auto* unary = ast::as<ast::UnaryOp>(&e); unary && unary->op == ast::UnaryOpKind::Not)
    return condition_leaves(*unary->operand);
  return {&e};
}

// A value that is a Python number literal (`0.0`, `-1`), or null.
const ast::expr* number_literal(const ast::expr* e) {
  const ast::expr* inner = e;
  if (auto* unary = ast::as<ast::UnaryOp>(e);
      unary && (unary->op == ast::UnaryOpKind::USub || unary->op == ast::UnaryOpKind::UAdd))
    inner = unary->operand;
  auto* constant = ast::as<ast::Constant>(inner);
  if (constant == nullptr) return nullptr;
  using Type = ast::ConstantValue::Type;
  Type type = constant->value.type;
  return type == Type::Int || type == Type::Float ? e : nullptr;
}

const ast::expr* first_index(const std::vector<const ast::Node*>& nodes) {
  auto slicing = [](const ast::expr* e) {
    if (ast::is<ast::Slice>(e)) return true;
    const auto* c = ast::as<ast::Constant>(e);
    return c != nullptr && (c->value.type == ast::ConstantValue::Type::None ||
                            c->value.type == ast::ConstantValue::Type::Ellipsis);
  };
  const ast::expr* found = nullptr;
  for (const ast::Node* node : nodes)
    ast::walk(node, [&](const ast::Node* n) {
      if (found != nullptr || ast::is<ast::Raise>(n)) return false;
      const auto* sub = ast::as<ast::Subscript>(n);
      if (sub == nullptr || sub->ctx != ast::ExprContext::Load) return true;
      const auto* tuple = ast::as<ast::Tuple>(sub->slice);
      bool slices = tuple != nullptr ? std::all_of(tuple->elts.begin(), tuple->elts.end(), slicing)
                                     : slicing(sub->slice);
      if (!slices) found = sub;
      return found == nullptr;
    });
  return found;
}

bool is_python_constant(const ast::expr& e) {
  if (number_literal(&e) != nullptr) return true;
  const auto* constant = ast::as<ast::Constant>(&e);
  using Type = ast::ConstantValue::Type;
  return constant != nullptr &&
         (constant->value.type == Type::True || constant->value.type == Type::False ||
          constant->value.type == Type::None);
}

std::string short_text(std::string_view text) {
  std::string out(text.substr(0, std::min<size_t>(text.size(), 60)));
  std::replace(out.begin(), out.end(), '\n', ' ');
  if (text.size() > 60) out += "...";
  return out;
}

std::string parenthesize_multiline(std::string text) {
  if (text.find('\n') != std::string::npos) return "(" + text + ")";
  return text;
}

// ---------------------------------------------------------------------------------------
// The planner: building the tree.

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
    if (tree.is_split() || tree.returned) return fail("the rest of the block branches or returns");
  }
  return add_return(*tail->value, tree);
}

// A split on `operands` joined by `and`, true side `body`, false side `orelse`.
bool Planner::build_split(const std::vector<const ast::expr*>& operands,
                          const ast::Seq<ast::stmt*>& body, const ast::Seq<ast::stmt*>& orelse,
                          Tree& tree) {
  if (!tree.deferred.empty()) return fail("a nested tensor if after a call the branch records");
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
      error = "condition uses .item()/.tolist() (GM106, out of scope)";
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
      error = "condition operand `" + short_text(node_text(context_, *leaf)) +
              "` is not pure (Python evaluates it on some paths only; the rewrite on all)";
      return false;
    }
    for (const ast::Name* name : loads(operand)) {
      if (tree.env.count(name->id)) {
        error = "condition reads `" + std::string(name->id) +
                "`, assigned earlier in the enclosing branch";
        return false;
      }
    }
  }
  std::string tensor, python;
  for (const ast::expr* operand : operands) {
    std::optional<std::string> lowered = tensor_condition(context_, *operand);
    if (!lowered) {
      error = "condition `" + short_text(node_text(context_, *operand)) +
              "` is not a tensor expression";
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
    return fail("condition operand `" + text +
                "` is not pure, and the condition combines it with and/or/not");
  if (contains_kind(&leaf,
                    {Kind::Yield, Kind::YieldFrom, Kind::Await, Kind::Lambda, Kind::NamedExpr}))
    return fail("condition `" + text + "` is not pure and holds yield, await, a lambda or :=");
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

bool Planner::fail(std::string reason) {
  error = std::move(reason);
  return false;
}

bool Planner::build_statement(const ast::stmt& s, bool last, Tree& tree) {
  switch (s.kind) {
    case Kind::Pass:
      return true;
    case Kind::Assign: {
      auto& n = static_cast<const ast::Assign&>(s);
      auto* target = n.targets.size == 1 ? ast::as<ast::Name>(n.targets[0]) : nullptr;
      if (target == nullptr) return fail("assignment to a target that is not a single name");
      return add_assignment(target->id, *n.value, tree);
    }
    case Kind::AnnAssign: {
      auto& n = static_cast<const ast::AnnAssign&>(s);
      auto* target = ast::as<ast::Name>(n.target);
      if (target == nullptr || n.value == nullptr)
        return fail("annotated assignment without a value or to a non-name target");
      return add_assignment(target->id, *n.value, tree);
    }
    case Kind::AugAssign:
      return fail("augmented assignment in a branch (in place on tensors)");
    case Kind::Return: {
      auto& n = static_cast<const ast::Return&>(s);
      if (!last) return fail("statements after return in a branch");
      if (n.value == nullptr) return fail("bare return in a branch");
      return add_return(*n.value, tree);
    }
    case Kind::If: {
      auto& n = static_cast<const ast::If&>(s);
      if (static_ifs && !analysis_.is_data_dependent(*n.test)) return build_static_if(n, tree);
      if (!last) return fail("a nested if followed by more statements in a branch");
      if (!analysis_.is_data_dependent(*n.test))
        return fail("a static if nested in a tensor branch");
      if (auto* op = ast::as<ast::BoolOp>(n.test); op && op->op == ast::BoolOpKind::And) {
        std::vector<const ast::expr*> operands(op->values.begin(), op->values.end());
        return build_split(operands, n.body, n.orelse, tree);
      }
      return build_split({n.test}, n.body, n.orelse, tree);
    }
    case Kind::Break:
    case Kind::Continue:
      return fail("branch contains break/continue");
    case Kind::Raise:
      return add_raise(static_cast<const ast::Raise&>(s), last, tree);
    case Kind::Delete:
      return fail("branch deletes a name (del)");
    case Kind::Global:
    case Kind::Nonlocal:
      return fail("branch declares global/nonlocal names");
    case Kind::FunctionDef:
    case Kind::AsyncFunctionDef:
    case Kind::ClassDef:
      return fail("branch contains a nested def/class");
    case Kind::Expr: {
      auto& n = static_cast<const ast::Expr&>(s);
      if (contains_kind(n.value, {Kind::Yield, Kind::YieldFrom, Kind::Await}))
        return fail("branch contains yield/await");
      return add_deferred_call(n, tree);
    }
    case Kind::Import:
    case Kind::ImportFrom:
      return fail("branch contains an import");
    default:
      return fail("branch contains a loop, with, try or match statement");
  }
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
    return fail("expression statement in a branch (a side effect): `" +
                short_text(node_text(context_, statement)) + "`");
  for (const ast::Name* name : loads(call))
    if (tree.env.count(name->id) != 0)
      return fail("a call the branch makes reads `" + std::string(name->id) +
                  "`, which the branch assigns");
  std::vector<const ast::expr*> arguments(call->args.begin(), call->args.end());
  for (const ast::keyword* keyword : call->keywords) arguments.push_back(keyword->value);
  for (const ast::expr* argument : arguments)
    if (!recordable_argument(*argument))
      return fail("an argument of `" + short_text(node_text(context_, *call->func)) +
                  "` in a branch is not pure");
  sema::BreakTag tag{*kind, &statement, call, analysis_.function_of(call), {}, false};
  std::optional<std::string> recorded = deferred_text(tag, kPathCondition);
  std::optional<std::string> plain = recorded ? deferred_text(tag, {}) : std::nullopt;
  if (!plain) return false;
  tree.deferred.push_back({call, *recorded, *plain, indentation_of(context_, statement)});
  return true;
}

// An argument a recorded call evaluates whatever the condition: pure, or an f-string of
// pure values (a `t.item()` field is converted at the replay, only if the condition held).
bool Planner::recordable_argument(const ast::expr& argument) const {
  const ast::expr* value = &argument;
  if (const auto* starred = ast::as<ast::Starred>(value)) value = starred->value;
  const auto* joined = ast::as<ast::JoinedStr>(value);
  if (joined == nullptr) return analysis_.is_pure(*value);
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
                                                  std::string_view condition) {
  Outcome deferred = defer_call(tag, context_, condition);
  if (!deferred.fixed) {
    fail("a call in a branch cannot be deferred: " + deferred.reason);
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
    fail("internal: a deferred call's edits (" + error + ")");
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
  for (const ast::Name* name : loads(&n)) {
    if (name->id != var) continue;
    if (speculation != nullptr) focus(tree);
    return analysis_.is_number(*name, facts_of(tree));
  }
  return false;
}

// `if <static test>: ... else: ...` in a branch: both sides' values (pure, so computed
// unconditionally), then `var = <true> if <test> else <false>` for each variable assigned.
bool Planner::build_static_if(const ast::If& n, Tree& tree) {
  // Its test is evaluated where the original may not evaluate it (the tensor condition
  // held): a name or attribute whose truth test cannot raise, checked at run time
  // (runtime.python_flags: a bool, int, float or None).
  for (const ast::expr* leaf : condition_leaves(*n.test)) {
    if (!ast::is<ast::Name>(leaf) && !ast::is<ast::Attribute>(leaf))
      return fail("the static test `" + short_text(node_text(context_, *n.test)) +
                  "` is not a flag (a name or attribute; both sides evaluate it)");
    // the check before the statement reads the value before the branch
    for (const ast::Name* name : loads(leaf))
      if (tree.env.count(name->id) != 0)
        return fail("the static test reads `" + std::string(name->id) +
                    "`, assigned earlier in the branch (the run-time check cannot see it)");
    std::string flag(node_text(context_, *leaf));
    if (std::find(flag_checks.begin(), flag_checks.end(), flag) == flag_checks.end())
      flag_checks.push_back(flag);
  }
  if (!pure_as_written(*n.test))
    return fail("the static test `" + short_text(node_text(context_, *n.test)) + "` is not pure");
  std::optional<std::string> test = renamed(*n.test, tree, {});
  if (!test) return fail("comprehension, lambda or f-string reading a branch variable");
  note_free_reads(*n.test, tree);
  std::unique_ptr<Tree> sides[2] = {static_side(tree), static_side(tree)};
  size_t masked = masked_reads.size();
  if (!build_body(n.body, *sides[0]) || !build_body(n.orelse, *sides[1])) return false;
  // a masked read is masked by the tensor conditions only, not by this test
  if (masked_reads.size() != masked)
    return fail("a static if in a branch reading by a computed index");
  std::vector<std::string_view> vars;
  for (auto& side : sides) {
    if (side->is_split() || side->returned || side->raises())
      return fail("a static if in a branch holding a return, a raise or a tensor if");
    if (!side->deferred.empty()) return fail("a static if in a branch making a call it records");
    for (auto& a : side->assigns) tree.assigns.push_back(std::move(a));
    for (std::string_view name : side->free_reads) tree.free_reads.push_back(name);
    for (const auto& [var, temp] : side->env) {
      auto before = tree.env.find(var);
      bool changed = before == tree.env.end() || before->second != temp;
      if (changed && std::find(vars.begin(), vars.end(), var) == vars.end()) vars.push_back(var);
    }
  }
  auto placeholder = [](int temp) { return kTempOpen + std::to_string(temp) + kTempClose; };
  for (std::string_view var : vars) {
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
        {var, temp, value[0] + " if " + parenthesize_multiline(*test) + " else " + value[1]});
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
  return true;
}

// Checks a branch value; false with `error` when it cannot be evaluated unconditionally.
// `masked`: the subscripts by a computed index it reads ahead of the branch, masked.
bool Planner::check_value(const ast::expr& value, const Tree& tree,
                          std::vector<const ast::Subscript*>& masked) {
  if (contains_kind(&value, {Kind::Yield, Kind::YieldFrom, Kind::Await}))
    return fail("branch contains yield/await");
  if (contains_kind(&value, {Kind::Lambda})) return fail("branch contains a lambda");
  if (contains_kind(&value, {Kind::NamedExpr}))
    return fail("assignment expression (:=) in a branch");
  if (uses_scalar(&value)) return fail("branch value uses .item()/.tolist() (GM106)");
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
  sema::PurityFacts facts = facts_of(tree);
  if (!find_masked(value, tree, facts)) return false;
  if (!facts.masked_subscripts.empty() && analysis_.is_pure(value, facts)) {
    masked = facts.masked_subscripts;
    if (first_masked == nullptr) first_masked = masked.front();
    return true;
  }
  if (const ast::Subscript* index = computed_index(&value))
    return fail(computed_index_reason(context_, *index));
  return fail("branch value `" + short_text(node_text(context_, value)) +
              "` is not pure (side effects or may raise)");
}

// Whether `e` calls a submodule or a local function (what makes torch.cond worth it).
bool Planner::calls_expensive(const ast::expr& e) const {
  bool found = false;
  auto visit = [&](const ast::Node* n) {
    if (auto* call = ast::as<ast::Call>(n)) {
      sema::CalleeKind kind = analysis_.resolve_call(*call).kind;
      if (kind == sema::CalleeKind::SelfSubmodule || kind == sema::CalleeKind::LocalFunction)
        found = true;
    }
    return !found;
  };
  ast::walk(&e, visit);
  return found;
}

// A helper of this module that torch.cond can trace whole, called by `call`: torch.cond
// fails the compile (it does not break the graph) on anything Dynamo cannot trace inside a
// branch. So its body is straight-line code writing no state outside its locals, whose calls
// are torch functions, tensor methods other than Python-scalar conversions, and helpers of
// the same kind; no control flow, raise, assert or nested definition. Its parameters may be
// assumed tensors (`def rms(x, eps): return x * torch.rsqrt(x.pow(2).mean(-1) + eps)`: a
// method of `x` is a tensor method then) where the argument the call passes for each is a
// tensor, shown or assumed (and then checked before the statement).
bool Planner::local_function_is_cond_traceable(const sema::Callee& callee, const ast::Call& call,
                                               int depth) const {
  const auto* def = ast::as<ast::FunctionDef>(callee.definition);
  if (def == nullptr || depth > 4 || def->body.empty()) return false;
  if (contains_kind(def, {Kind::Global, Kind::Nonlocal, Kind::If, Kind::For, Kind::While, Kind::Try,
                          Kind::With, Kind::Raise, Kind::Assert, Kind::IfExp, Kind::Yield,
                          Kind::YieldFrom, Kind::Await, Kind::Lambda, Kind::ListComp, Kind::SetComp,
                          Kind::DictComp, Kind::GeneratorExp}))
    return false;
  if (analysis_.mutates_state(def->body) || uses_scalar(def)) return false;
  sema::Speculation inside;
  inside.site = def->body[0];
  sema::Speculation* outer = analysis_.speculate(&inside);
  bool traceable = true;
  for (const ast::stmt* statement : def->body) {
    traceable = traceable && traceable_calls(*statement, depth);
    if (traceable) note_helper_locals(*statement, inside);
  }
  analysis_.speculate(outer);
  return traceable && parameters_passed_tensors(*def, call, inside.assumed);
}

// The calls of one statement of a cond-traceable helper (above), under its speculation.
bool Planner::traceable_calls(const ast::stmt& statement, int depth) const {
  bool traceable = true;
  auto visit = [&](const ast::Node* n) {
    if (n->kind == Kind::FunctionDef || n->kind == Kind::AsyncFunctionDef ||
        n->kind == Kind::ClassDef)
      traceable = false;
    if (const auto* call = ast::as<ast::Call>(n)) {
      sema::Callee inner = analysis_.resolve_call(*call);
      switch (inner.kind) {
        case sema::CalleeKind::TorchFunction:
        case sema::CalleeKind::TensorMethod:
          break;
        case sema::CalleeKind::LocalFunction:
          traceable = local_function_is_cond_traceable(inner, *call, depth + 1);
          break;
        default:
          traceable = false;
      }
    }
    return traceable;
  };
  ast::walk(&statement, visit);
  return traceable;
}

// After a statement of a straight-line helper: a name it binds to a tensor (given the
// assumptions) holds one from there on, any other name it binds is not assumed one.
void Planner::note_helper_locals(const ast::stmt& statement, sema::Speculation& inside) const {
  const auto* assign = ast::as<ast::Assign>(&statement);
  if (assign == nullptr) {
    for (const ast::Name* name : stores(&statement)) inside.local.push_back(name->id);
    return;
  }
  bool tensor = analysis_.is_tensor(*assign->value);
  for (const ast::expr* target : assign->targets) {
    const auto* name = ast::as<ast::Name>(target);
    if (name != nullptr && tensor) {
      inside.derived.push_back(name->id);
      continue;
    }
    for (const ast::Name* stored : stores(target)) inside.local.push_back(stored->id);
  }
}

// Every value assumed inside a helper is one of its parameters, passed a tensor by `call`,
// or, in a method called on the caller's own `self`, an attribute of `self` the caller may
// assume too (the check before the statement reads the same text).
bool Planner::parameters_passed_tensors(const ast::FunctionDef& def, const ast::Call& call,
                                        const std::vector<const ast::expr*>& assumed) const {
  const auto* method = ast::as<ast::Attribute>(call.func);
  size_t bound = method != nullptr && !is_staticmethod(def) ? 1 : 0;
  const auto* receiver = bound == 1 ? ast::as<ast::Name>(method->value) : nullptr;
  const ast::arg* self = bound == 1 && !def.args->args.empty() ? def.args->args[0] : nullptr;
  bool same_self = receiver != nullptr && self != nullptr && receiver->id == self->arg;
  for (const ast::expr* value : assumed) {
    if (ast::is<ast::Attribute>(value)) {
      if (!same_self || root_name(*value) != self->arg || !analysis_.is_tensor(*value))
        return false;
      continue;
    }
    const auto* name = ast::as<ast::Name>(value);
    const ast::arg* param = name != nullptr ? parameter_named(def, name->id) : nullptr;
    const ast::expr* argument =
        param != nullptr ? sema::argument_for(def, *param, call, bound) : nullptr;
    if (argument == nullptr || !analysis_.is_tensor(*argument)) return false;
  }
  return true;
}

// Pure apart from calls of submodules / local functions: a torch.cond candidate.
bool Planner::cond_eligible(const ast::expr& e) const {
  // a helper's call is eligible where torch.cond can trace the helper whole (below), not
  // merely where it is pure: a validation or a static if in it is for torch.where
  if (!calls_expensive(e) && analysis_.is_pure(e)) return true;
  switch (e.kind) {
    case Kind::Call: {
      auto& call = static_cast<const ast::Call&>(e);
      sema::Callee callee = analysis_.resolve_call(call);
      switch (callee.kind) {
        case sema::CalleeKind::LocalFunction:
          // torch.cond traces both branch functions: a helper it cannot trace fails it.
          if (!local_function_is_cond_traceable(callee, call)) return false;
          break;
        case sema::CalleeKind::SelfSubmodule:
        case sema::CalleeKind::TorchFunction:
          break;
        case sema::CalleeKind::TensorMethod: {
          auto* attr = ast::as<ast::Attribute>(call.func);
          if (attr == nullptr || !cond_eligible(*attr->value)) return false;
          break;
        }
        default:
          return false;
      }
      for (auto* arg : call.args)
        if (ast::is<ast::Starred>(arg) || !cond_eligible(*arg)) return false;
      for (auto* kw : call.keywords)
        if (kw->arg.empty() || !cond_eligible(*kw->value)) return false;
      return true;
    }
    case Kind::BinOp: {
      auto& n = static_cast<const ast::BinOp&>(e);
      return cond_eligible(*n.left) && cond_eligible(*n.right);
    }
    case Kind::UnaryOp:
      return cond_eligible(*static_cast<const ast::UnaryOp&>(e).operand);
    case Kind::Compare: {
      auto& n = static_cast<const ast::Compare&>(e);
      if (!cond_eligible(*n.left)) return false;
      for (auto* c : n.comparators)
        if (!cond_eligible(*c)) return false;
      return true;
    }
    case Kind::Attribute:
      return cond_eligible(*static_cast<const ast::Attribute&>(e).value);
    case Kind::Tuple: {
      for (auto* elt : static_cast<const ast::Tuple&>(e).elts)
        if (!cond_eligible(*elt)) return false;
      return true;
    }
    default:
      return false;
  }
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
  for (const ast::Name* name : loads(&value))
    if (tree.env.count(name->id) == 0) tree.free_reads.push_back(name->id);
}

void Planner::note_reads(const ast::expr& value, Tree& tree) {
  for (const ast::Name* name : loads(&value)) {
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
  if (speculation != nullptr) focus(tree);
  std::vector<const ast::Subscript*> masked;
  if (!check_value(value, tree, masked)) return false;
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
  std::optional<std::string> text = renamed(value, tree, masked);
  if (!text) return fail("comprehension, lambda or f-string reading a branch variable");
  note_free_reads(value, tree);
  int temp = temps++;
  tree.assigns.push_back({var, temp, *text, is_python_constant(value)});
  tree.env[var] = temp;
  note_reads(value, tree);
  if (std::find(tree.assigned.begin(), tree.assigned.end(), var) == tree.assigned.end())
    tree.assigned.push_back(var);
  tree.alias[var] = may_alias_input(context_, value);
  tree.shares[var] = may_alias(context_, value);
  tree.cond_body.push_back(std::string(var) + " = " +
                           parenthesize_multiline(std::string(node_text(context_, value))));
  return true;
}

bool Planner::add_return(const ast::expr& value, Tree& tree) {
  if (speculation != nullptr) focus(tree);
  std::vector<const ast::Subscript*> masked;
  if (!check_value(value, tree, masked)) return false;
  std::optional<std::string> text = renamed(value, tree, masked);
  if (!text) return fail("comprehension, lambda or f-string reading a branch variable");
  note_free_reads(value, tree);
  int temp = temps++;
  tree.assigns.push_back({std::string_view(), temp, *text, is_python_constant(value)});
  tree.returned = temp;
  tree.returned_arity = tuple_arity(value);
  note_reads(value, tree);
  tree.cond_returns = {unaliased(context_, value)};
  return true;
}

// `raise` ending a branch: a leaf that gives no value and, predicated, raises where its
// path's conditions hold ([Trap]'s guard). Its message is built only then, as the original
// builds it, and before any merged variable is assigned: it may not read what the branch
// assigned.
bool Planner::add_raise(const ast::Raise& raise, bool last, Tree& tree) {
  if (!last) return fail("statements after raise in a branch");
  if (!context_.options.rewrites.has(RewriteKind::Trap))
    return fail("a branch raises, and the [trap] rewrite that guards it is disabled");
  if (speculation != nullptr) focus(tree);
  GuardRaise form = guard_raise(context_, raise, raise, {});
  if (!form.problem.empty())
    return fail("a branch raises, and its raise has no guard form: " + form.problem);
  for (const ast::Name* name : loads(&raise)) {
    if (tree.env.count(name->id) != 0)
      return fail("a branch raises with a message reading `" + std::string(name->id) +
                  "`, which the branch assigns");
    tree.message_reads.push_back(name->id);
  }
  std::string written(node_text(context_, raise));
  tree.raise = RaisingArm{written, indentation_of(context_, raise), form.function, form.arguments};
  return true;
}

// ---------------------------------------------------------------------------------------
// The tree's leaves and merge order; what is bound where the statement stands.

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

namespace {

// The parameters of the function owning the innermost FunctionDef on `path`.
const ast::arguments* function_arguments(const std::vector<BlockRef>& path, size_t& level) {
  for (size_t k = path.size(); k-- > 0;) {
    const ast::stmt* owner = path[k].owner;
    if (auto* f = ast::as<ast::FunctionDef>(owner)) {
      level = k;
      return f->args;
    }
    if (auto* f = ast::as<ast::AsyncFunctionDef>(owner)) {
      level = k;
      return f->args;
    }
  }
  return nullptr;
}

bool binds(const ast::stmt& s, std::string_view var) {
  auto target_binds = [&](const ast::expr* target) {
    if (auto* name = ast::as<ast::Name>(target)) return name->id == var;
    if (auto* tuple = ast::as<ast::Tuple>(target)) {
      for (auto* elt : tuple->elts)
        if (auto* name = ast::as<ast::Name>(elt); name && name->id == var) return true;
    }
    return false;
  };
  switch (s.kind) {
    case Kind::Assign:
      for (auto* t : static_cast<const ast::Assign&>(s).targets)
        if (target_binds(t)) return true;
      return false;
    case Kind::AnnAssign: {
      auto& n = static_cast<const ast::AnnAssign&>(s);
      return n.value != nullptr && target_binds(n.target);
    }
    case Kind::AugAssign:
      return target_binds(static_cast<const ast::AugAssign&>(s).target);
    default:
      return false;
  }
}

}  // namespace

// Whether `var` is bound on every path reaching the statement at the end of `path`: a
// parameter, or assigned by a simple statement earlier in an enclosing block of the function.
bool definitely_bound(const std::vector<BlockRef>& path, std::string_view var) {
  size_t level = 0;
  const ast::arguments* args = function_arguments(path, level);
  if (args == nullptr) return false;
  auto is_param = [&](const ast::Seq<ast::arg*>& list) {
    for (auto* a : list)
      if (a->arg == var) return true;
    return false;
  };
  if (is_param(args->posonlyargs) || is_param(args->args) || is_param(args->kwonlyargs))
    return true;
  if ((args->vararg && args->vararg->arg == var) || (args->kwarg && args->kwarg->arg == var))
    return true;
  for (size_t k = path.size(); k-- > level;) {
    const BlockRef& ref = path[k];
    for (uint32_t i = 0; i < ref.index; ++i)
      if (binds(*(*ref.block)[i], var)) return true;
  }
  return false;
}

// A test the rewrite emitted: `runtime.where_ok(...)` or its run-time check `runtime.tensors(...)`.
bool is_where_ok_test(const Context& context, const ast::expr* test) {
  bool found = false;
  auto visit = [&](const ast::Node* n) {
    if (auto* call = ast::as<ast::Call>(n))
      if (auto* attr = ast::as<ast::Attribute>(call->func))
        if (auto* base = ast::as<ast::Name>(attr->value))
          if (base->id == context.runtime &&
              (attr->attr == "where_ok" || attr->attr == "tensors" || attr->attr == "cond_safe" ||
               attr->attr == "masked_fill_ok" || attr->attr == "masked_index_ok" ||
               attr->attr == "index_where_ok"))
            found = true;
    return !found;
  };
  ast::walk(test, visit);
  return found;
}

// Function-local names: parameters and names assigned anywhere in the function body.
std::set<std::string_view> function_locals(const Context& context,
                                           const std::vector<BlockRef>& path) {
  std::set<std::string_view> out;
  size_t level = 0;
  const ast::arguments* args = function_arguments(path, level);
  if (args == nullptr) return out;
  for (auto* list : {&args->posonlyargs, &args->args, &args->kwonlyargs})
    for (auto* a : *list) out.insert(a->arg);
  if (args->vararg) out.insert(args->vararg->arg);
  if (args->kwarg) out.insert(args->kwarg->arg);
  for (std::string_view name : context.analysis.assigned_names(*path[level].block))
    out.insert(name);
  return out;
}

// Why `statement` is not an if this rewrite may predicate, or empty; `path` is its place.
std::string check_statement(const Context& context, const ast::stmt& statement,
                            std::vector<BlockRef>& path) {
  if (ast::is<ast::While>(&statement))
    return "while loop on a tensor condition (loops are not predicated)";
  const ast::If* node = ast::as<ast::If>(&statement);
  if (node == nullptr) return "only if statements are predicated";
  if (!find_path(context.module.body, nullptr, &statement, path))
    return "statement not found in the module";
  for (const BlockRef& ref : path)
    if (auto* owner = ast::as<ast::If>(ref.owner); owner && is_where_ok_test(context, owner->test))
      return "fallback branch of an already predicated if";
  if (is_where_ok_test(context, node->test)) return "already predicated (runtime where_ok test)";
  return {};
}

namespace {

// The enclosing data-dependent if whose branch ends with `path`'s statement and that is
// predicated with torch.where (and so predicates this one too), or null.
const ast::If* covering_break_site(const Context& context, const std::vector<BlockRef>& path) {
  std::vector<const ast::If*> enclosing;
  for (size_t k = path.size(); k-- > 1;) {
    const BlockRef& ref = path[k];
    auto* owner = ast::as<ast::If>(ref.owner);
    if (owner == nullptr || ref.index + 1 != ref.block->size ||
        !context.analysis.is_data_dependent(*owner->test))
      break;
    enclosing.push_back(owner);
  }
  for (size_t k = enclosing.size(); k-- > 0;) {
    PlanResult outer = plan_statement(context, *enclosing[k], false);
    if (outer.plan && !outer.plan->use_cond) return enclosing[k];
  }
  return nullptr;
}

// covering_break_site as the text shows it: only a break site covers, and an enclosing
// test that is data-dependent only under the active speculation (`if self.training:` with
// `self.training` assumed a tensor) is no break site, so nothing rewrites it.
const ast::If* covering_if(const Context& context, const std::vector<BlockRef>& path) {
  sema::Speculation* active = context.analysis.speculate(nullptr);
  const ast::If* cover = covering_break_site(context, path);
  context.analysis.speculate(active);
  return cover;
}

}  // namespace

const ast::If* enclosing_predicated_if(const Context& context, const ast::stmt& statement) {
  std::vector<BlockRef> path;
  if (!find_path(context.module.body, nullptr, &statement, path)) return nullptr;
  return covering_if(context, path);
}

// `else_ifs`: an else branch may hold another if (tail duplication lowers a static one).
std::string split_condition(const Context& context, const ast::If& node, Condition& condition,
                            bool else_ifs) {
  condition.operands = {node.test};
  auto* op = ast::as<ast::BoolOp>(node.test);
  if (op == nullptr || op->op != ast::BoolOpKind::And) return {};
  std::vector<const ast::expr*> operands(op->values.begin(), op->values.end());
  auto first_dependent = [&] {
    size_t k = 0;
    while (k < operands.size() && !context.analysis.is_data_dependent(*operands[k])) ++k;
    return k;
  };
  // the prefix as the text shows it: a flag (`do_normalize and image.min() < 0`) stays a
  // Python test rather than a value assumed to be a tensor
  sema::Speculation* active = context.analysis.speculate(nullptr);
  size_t k = first_dependent();
  context.analysis.speculate(active);
  if (k == operands.size()) k = first_dependent();  // only a speculation shows the data
  if (k == operands.size()) return "condition is not data-dependent";
  if (k == 0) return {};  // no static prefix: the condition as a whole
  for (size_t i = 0; i < k; ++i) {
    if (!condition.prefix.empty()) condition.prefix += " and ";
    std::string text(node_text(context, *operands[i]));
    condition.prefix += k > 1 || text.find('\n') != std::string::npos ? "(" + text + ")" : text;
  }
  condition.static_operands.assign(operands.begin(),
                                   operands.begin() + static_cast<std::ptrdiff_t>(k));
  condition.operands.assign(operands.begin() + static_cast<std::ptrdiff_t>(k), operands.end());
  if (!else_ifs && contains_kind(&node, {Kind::If}) && !node.orelse.empty()) {
    for (auto* s : node.orelse)
      if (contains_kind(s, {Kind::If}))
        return "static condition prefix with an else branch holding another if";
  }
  return {};
}

namespace {

// The branch tree and the planner that built it.
struct Built {
  std::unique_ptr<Tree> root;
  std::unique_ptr<Planner> planner;
  bool returns = false;
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
std::string build_tree(const Context& context, const ast::If& node,
                       const std::vector<BlockRef>& path, const Condition& condition,
                       const std::string& torch, sema::Speculation* speculation, Built& built) {
  std::vector<const ast::stmt*> tail_statements;
  const ast::Return* follower = block_tail(path.back(), tail_statements);
  for (int attempt = 0; attempt < 2; ++attempt) {
    built.planner = std::make_unique<Planner>(context);
    built.planner->torch_ = torch;
    built.planner->speculation = speculation;
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
    if (raising == leaves.size()) return "every branch raises";
    if (returning + raising == leaves.size()) {
      built.returns = true;
      return {};
    }
    if (returning == 0) return {};
    if (attempt == 1 || follower == nullptr)
      return "only some branches return (and the rest of the block does not end in a return "
             "after assignments only)";
  }
  return {};
}

// A merged variable a branch sets to True, False, None or a number literal (`detected =
// True`, torchmetrics' AUC `direction = -1.0`), or a branch returning one: torch.where never
// selects it (where_ok holds for tensors only), so the rewrite would only keep the break.
std::string merges_constant(const std::vector<Tree*>& leaves, const Plan& plan) {
  for (const Tree* leaf : leaves)
    for (const Assignment& assignment : leaf->assigns) {
      if (!assignment.python_constant || leaf->raises()) continue;
      if (plan.returns && leaf->returned == assignment.temp)
        return "a branch returns " + assignment.value + " (torch.where selects tensors only)";
      auto final_value = leaf->env.find(assignment.var);
      bool merged = !plan.returns && std::find(plan.merge.begin(), plan.merge.end(),
                                               assignment.var) != plan.merge.end();
      if (merged && final_value != leaf->env.end() && final_value->second == assignment.temp)
        return "the branch sets `" + std::string(assignment.var) + "` to " + assignment.value +
               " (torch.where selects tensors only)";
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

// torch's functions whose result may be (a view of) an argument.
bool is_view_function(std::string_view name) {
  static const std::set<std::string_view> kViews = {"torch.narrow",
                                                    "torch.transpose",
                                                    "torch.swapaxes",
                                                    "torch.swapdims",
                                                    "torch.squeeze",
                                                    "torch.unsqueeze",
                                                    "torch.reshape",
                                                    "torch.flatten",
                                                    "torch.permute",
                                                    "torch.movedim",
                                                    "torch.moveaxis",
                                                    "torch.select",
                                                    "torch.t",
                                                    "torch.diagonal",
                                                    "torch.as_strided",
                                                    "torch.view_as_real",
                                                    "torch.view_as_complex",
                                                    "torch.detach",
                                                    "torch.broadcast_to",
                                                    "torch.unflatten",
                                                    "torch.atleast_1d",
                                                    "torch.atleast_2d",
                                                    "torch.atleast_3d",
                                                    "torch.real",
                                                    "torch.imag",
                                                    "torch.unbind",
                                                    "torch.chunk",
                                                    "torch.split",
                                                    "torch.tensor_split",
                                                    "torch.hsplit",
                                                    "torch.vsplit",
                                                    "torch.dsplit",
                                                    "torch.as_tensor",
                                                    "torch.asarray",
                                                    "torch.from_numpy"};
  return kViews.count(name) != 0;
}

}  // namespace

// Whether a torch.cond branch must copy `value` before returning it: a name, or a value that
// may be an existing tensor or a view of one (may_alias), other than a tensor method that
// returns a new tensor (torch_facts' FreshResult: `x.flip(-1)`).
bool may_alias_input(const Context& context, const ast::expr& value) {
  if (ast::is<ast::Name>(&value)) return true;
  const auto* call = ast::as<ast::Call>(&value);
  const auto* method = call != nullptr ? ast::as<ast::Attribute>(call->func) : nullptr;
  if (method != nullptr && sema::has_fact(sema::TorchFact::FreshResult, method->attr) &&
      context.analysis.resolve_call(*call).kind == sema::CalleeKind::TensorMethod)
    return false;
  return may_alias(context, value);
}

// `value` as a torch.cond branch returns it: its branches may not return a tensor that
// aliases an input, so a copy of one that may be an existing tensor or a view of one (a
// helper's `tensor.unsqueeze(0)`), element by element in a tuple display.
std::string unaliased(const Context& context, const ast::expr& value) {
  std::string written = parenthesize_multiline(std::string(node_text(context, value)));
  if (const auto* tuple = ast::as<ast::Tuple>(&value)) {
    std::string out;
    for (const ast::expr* element : tuple->elts)
      out += (out.empty() ? "" : ", ") + unaliased(context, *element);
    return "(" + out + (tuple->elts.size == 1 ? ",)" : ")");
  }
  if (!may_alias_input(context, value)) return written;
  return (ast::is_primary(&value) ? written : "(" + written + ")") + ".clone()";
}

// Whether a branch value may be an existing tensor itself or a view of one, which the
// original shares with other names: a name, attribute or subscript, a method's result (`.to`,
// `.float()`, `.contiguous()` return the tensor itself when nothing changes; `.view`,
// `.transpose` views), a view function's. Arithmetic and other torch functions make new ones.
bool may_alias(const Context& context, const ast::expr& value) {
  switch (value.kind) {
    case Kind::Constant:
    case Kind::BinOp:
    case Kind::Compare:
    case Kind::JoinedStr:
    case Kind::ListComp:
    case Kind::Dict:
    case Kind::DictComp:
    case Kind::Set:
    case Kind::SetComp:
      return false;
    case Kind::UnaryOp:
      return ast::as<ast::UnaryOp>(&value)->op == ast::UnaryOpKind::UAdd;
    case Kind::Tuple:
    case Kind::List: {  // holds what its elements may be
      const auto& elements = value.kind == Kind::Tuple ? ast::as<ast::Tuple>(&value)->elts
                                                       : ast::as<ast::List>(&value)->elts;
      return std::any_of(elements.begin(), elements.end(),
                         [&](const ast::expr* e) { return may_alias(context, *e); });
    }
    case Kind::Call: {
      const auto& call = *ast::as<ast::Call>(&value);
      // what the callee is, as the text shows it: resolving assumes nothing of the receiver
      sema::Speculation* active = context.analysis.speculate(nullptr);
      sema::Callee callee = context.analysis.resolve_call(call);
      context.analysis.speculate(active);
      if (callee.kind == sema::CalleeKind::TorchFunction)
        return is_view_function(callee.qualified_name);
      return callee.kind != sema::CalleeKind::Builtin;
    }
    default:
      return true;  // names, attributes, subscripts, conditional expressions...
  }
}

namespace {

// The innermost function holding `statement` (the module when none does).
const ast::Node* enclosing_scope(const Context& context, const ast::stmt& statement) {
  const ast::Node* scope = &context.module;
  ast::walk(&context.module, [&](const ast::Node* n) {
    bool holds = n->begin <= statement.begin && statement.end <= n->end;
    if (holds && (ast::is<ast::FunctionDef>(n) || ast::is<ast::AsyncFunctionDef>(n))) scope = n;
    return holds;
  });
  return scope;
}

// The nodes of `scope`'s own body, nested functions, classes and lambdas left out.
template <class Visit>
void walk_own_body(const ast::Node* scope, const Visit& visit) {
  ast::walk(scope, [&](const ast::Node* n) {
    if (n != scope && (ast::is<ast::FunctionDef>(n) || ast::is<ast::AsyncFunctionDef>(n) ||
                       ast::is<ast::ClassDef>(n) || ast::is<ast::Lambda>(n)))
      return false;
    visit(n);
    return true;
  });
}

// The name a target or receiver is rooted at (`y` of `y[..., -1]`, `self` of
// `self.buf.data`), or empty.
std::string_view root_name(const ast::expr* e) {
  while (true) {
    if (const auto* name = ast::as<ast::Name>(e)) return name->id;
    if (const auto* sub = ast::as<ast::Subscript>(e)) {
      e = sub->value;
    } else if (const auto* attr = ast::as<ast::Attribute>(e)) {
      e = attr->value;
    } else if (const auto* call = ast::as<ast::Call>(e)) {
      e = call->func;
    } else {
      return {};
    }
  }
}

// `names` grown by every name the function binds to a value that may share a tensor with
// one of them (`z = y`, `v = preds.view(-1)`), until none is added; `holders` gets those
// bound to a tuple or list display holding one (`outputs = (y,)`), through which a tensor
// changes only by an element (`outputs[0].add_(1)`; `outputs += (a,)` makes a new tuple).
void add_aliases(const Context& context, const ast::Node* scope, std::set<std::string_view>& names,
                 std::set<std::string_view>& holders) {
  for (size_t before = 0; before != names.size() + holders.size();) {
    before = names.size() + holders.size();
    walk_own_body(scope, [&](const ast::Node* n) {
      const auto* assign = ast::as<ast::Assign>(n);
      if (assign == nullptr || !may_alias(context, *assign->value)) return;
      bool reads = false;
      for (const ast::Name* read : loads(assign->value))
        reads |= names.count(read->id) != 0 || holders.count(read->id) != 0;
      if (!reads) return;
      bool display = ast::is<ast::Tuple>(assign->value) || ast::is<ast::List>(assign->value);
      for (const ast::expr* target : assign->targets)
        ast::walk(target, [&](const ast::Node* t) {
          const auto* bound = ast::as<ast::Name>(t);
          if (bound != nullptr && bound->ctx == ast::ExprContext::Store)
            (display && bound == target ? holders : names).insert(bound->id);
          return true;
        });
    });
  }
}

// Whether the function holding `statement` changes in place a tensor one of `names` may
// hold: a subscript store or augmented assignment rooted at one (`y[..., -1] += 1e-6`; `y +=
// 1` is in place on a tensor), an in-place method on one (`y.add_(1)`) or an `out=` argument.
bool changes_tensors_in_place(const Context& context, const ast::stmt& statement,
                              std::set<std::string_view> names) {
  const ast::Node* scope = enclosing_scope(context, statement);
  std::set<std::string_view> holders;
  add_aliases(context, scope, names, holders);
  auto shared = [&](const ast::expr* e) {
    std::string_view root = root_name(e);
    if (root.empty() || names.count(root) != 0) return true;
    return holders.count(root) != 0 && !ast::is<ast::Name>(e);  // an element of one
  };
  bool found = false;
  walk_own_body(scope, [&](const ast::Node* n) {
    if (const auto* update = ast::as<ast::AugAssign>(n)) found |= shared(update->target);
    if (const auto* assign = ast::as<ast::Assign>(n))
      for (const ast::expr* target : assign->targets)
        found |= ast::is<ast::Subscript>(target) && shared(target);
    if (const auto* call = ast::as<ast::Call>(n)) {
      if (const auto* method = ast::as<ast::Attribute>(call->func)) {
        std::string_view m = method->attr;
        found |= m.size() > 1 && m.back() == '_' && m.front() != '_' && shared(method->value);
      }
      for (const ast::keyword* k : call->keywords) found |= k->arg == "out" && shared(k->value);
    }
  });
  return found;
}

// A merged variable that may share its tensor with another name (a branch value that is a
// name, a view or a method's result, or the value it kept from before the if), in a function
// that changes tensors in place: torch.where and torch.cond give a new tensor, so a change
// through the variable would no longer reach the other name, or the other way round.
std::string shares_merged_tensor(const Context& context, const ast::stmt& statement,
                                 const std::vector<Tree*>& leaves, const Plan& plan) {
  if (plan.returns) return {};
  std::set<std::string_view> names(plan.merge.begin(), plan.merge.end());
  for (const Tree* leaf : leaves)
    for (const auto& [name, node] : leaf->reads) names.insert(name);
  for (std::string_view var : plan.merge)
    for (const Tree* leaf : leaves) {
      auto shares = leaf->shares.find(var);
      if (shares != leaf->shares.end() && !shares->second) continue;
      // the same for every variable: asked once, of the first that may share
      if (!changes_tensors_in_place(context, statement, names)) return {};
      return "`" + std::string(var) +
             "` may hold a tensor another name holds too (a name, a view, a method's result "
             "or its value before the if), and the function changes tensors in place: the "
             "predicated value is a new tensor, which such a change would not reach";
    }
  return {};
}

// The variables assigned in some branch and live after the if, each bound on every path.
std::string merge_set(const Context& context, const ast::If& node,
                      const std::vector<BlockRef>& path, const std::vector<Tree*>& leaves,
                      Plan& plan) {
  std::vector<std::string_view> assigned;
  merge_order(*plan.root, assigned);
  std::vector<std::string_view> live = context.analysis.live_after(node);
  for (std::string_view var : assigned)
    if (std::find(live.begin(), live.end(), var) != live.end()) plan.merge.push_back(var);
  if (plan.merge.empty()) return "the branches assign no variable used afterwards";
  for (std::string_view var : plan.merge) {
    for (Tree* leaf : leaves) {
      if (leaf->env.count(var) == 0 && !leaf->raises() && !definitely_bound(path, var) &&
          !context.analysis.is_definitely_bound_before(node, var))
        return "different live sets: `" + std::string(var) +
               "` is assigned in only some branches and not bound before the if";
    }
  }
  return {};
}

}  // namespace

// Every local a branch reads before assigning it is bound before the if: the rewrite
// evaluates every branch, and an unbound one would raise where the original did not.
std::string reads_bound(const Context& context, const ast::stmt& node,
                        const std::vector<BlockRef>& path, const std::vector<Tree*>& leaves) {
  std::set<std::string_view> locals = function_locals(context, path);
  auto unbound = [&](std::string_view name) {
    return locals.count(name) != 0 && !definitely_bound(path, name) &&
           !context.analysis.is_definitely_bound_before(node, name);
  };
  for (const Tree* leaf : leaves) {
    for (std::string_view name : leaf->free_reads)
      if (unbound(name))
        return "a branch reads `" + std::string(name) + "`, which may be unbound before the if";
    // a guard's message function reads it as a free variable: a NameError of its own
    for (std::string_view name : leaf->message_reads)
      if (unbound(name))
        return "a branch raises with a message reading `" + std::string(name) +
               "`, which may be unbound before the if";
  }
  return {};
}

namespace {

// torch.cond's operands: the tensor locals the branches read, and the merged variables a
// branch does not assign (returned as clones).
std::string cond_operands(const Context& context, const std::vector<BlockRef>& path,
                          const std::vector<Tree*>& leaves, Plan& plan) {
  std::set<std::string_view> locals = function_locals(context, path);
  auto add_operand = [&](std::string_view name) {
    if (std::find(plan.operands.begin(), plan.operands.end(), name) == plan.operands.end())
      plan.operands.push_back(std::string(name));
  };
  for (Tree* leaf : leaves) {
    for (const auto& [name, node_ptr] : leaf->reads) {
      if (locals.count(name) == 0) continue;
      if (context.analysis.is_tensor(*node_ptr)) {
        add_operand(name);
        continue;
      }
      for (Tree* other : leaves)
        if (std::find(other->assigned.begin(), other->assigned.end(), name) !=
            other->assigned.end())
          return "non-tensor local `" + std::string(name) +
                 "` is read and reassigned in a torch.cond branch";
    }
  }
  for (Tree* leaf : leaves) {
    if (plan.returns) continue;
    leaf->cond_returns.clear();
    for (std::string_view var : plan.merge) {
      if (leaf->env.count(var) == 0) {
        add_operand(var);
        leaf->cond_returns.push_back(std::string(var) + ".clone()");
      } else {
        leaf->cond_returns.push_back(std::string(var) + (leaf->alias[var] ? ".clone()" : ""));
      }
    }
  }
  if (plan.operands.empty()) return "torch.cond branches read no tensor operand";
  return {};
}

// Whether `var`, a merged variable, holds a tensor before the if: shown there, or (under a
// speculation) assumed at a read of it in a branch before the branch assigns it, where it
// still holds that value (`h = self.lin(x); if h.sum() > 0: h = self.proj(h)`).
bool tensor_before(const Context& context, const ast::stmt& statement,
                   const std::vector<Tree*>& leaves, std::string_view var) {
  if (context.analysis.is_tensor_before(statement, var)) return true;
  for (const Tree* leaf : leaves)
    for (const auto& [name, node] : leaf->reads)
      if (name == var && context.analysis.is_tensor(*node)) return true;
  return false;
}

// A merged variable a branch does not assign is returned as it was before the if, which
// torch.cond needs to be a tensor (the torch.where form checks it at run time: where_ok).
std::string kept_values_are_tensors(const Context& context, const std::vector<BlockRef>& path,
                                    const std::vector<Tree*>& leaves, const Plan& plan) {
  const BlockRef& here = path.back();
  const ast::stmt& statement = *(*here.block)[here.index];
  for (const Tree* leaf : leaves) {
    for (std::string_view var : plan.returns ? std::vector<std::string_view>{} : plan.merge) {
      if (leaf->env.count(var) == 0 && !tensor_before(context, statement, leaves, var))
        return "`" + std::string(var) +
               "` keeps its value in a torch.cond branch, and that value is not shown to be a "
               "tensor before the if";
    }
  }
  return {};
}

// torch.cond (a branch calls code): exactly two branches, tensor operands, nothing
// returned aliased.
std::string plan_cond(const Context& context, const std::vector<BlockRef>& path,
                      const std::vector<Tree*>& leaves, Plan& plan) {
  if (leaves.size() != 2 || plan.root->on_true->is_split() || plan.root->on_false->is_split())
    return "a branch calls a submodule/function inside a nested branch "
           "(torch.cond needs exactly two branches)";
  if (std::string why = kept_values_are_tensors(context, path, leaves, plan); !why.empty())
    return why;
  if (std::string why = cond_operands(context, path, leaves, plan); !why.empty()) return why;
  plan.use_cond = true;
  return {};
}

}  // namespace

// A checked plan evaluates the static prefix once more when the check fails.
std::string check_static_prefix(const Context& context, const Plan& plan) {
  for (const ast::expr* operand : plan.static_operands) {
    if (!context.analysis.is_pure(*operand))
      return "condition `" + short_text(node_text(context, *operand)) +
             "` is not pure (a checked rewrite evaluates it again when the check fails)";
  }
  return {};
}

namespace {

PlanResult plan_once(const Context& context, const ast::stmt& statement, bool check_enclosing,
                     sema::Speculation* speculation) {
  PlanResult result;
  auto decline = [&](std::string reason) {
    result.reason = std::move(reason);
    return std::move(result);
  };
  std::vector<BlockRef> path;
  if (std::string why = check_statement(context, statement, path); !why.empty())
    return decline(why);
  const ast::If& node = *ast::as<ast::If>(&statement);
  if (check_enclosing) {
    if (const ast::If* cover = covering_if(context, path)) {
      Plan plan;
      plan.statement = &node;
      plan.covered_by = cover;
      result.plan = std::move(plan);
      return result;
    }
  }
  if (written_as_elif(context, node))
    return decline(
        "an elif whose if is not predicated with it: its rewrite would replace the elif and "
        "drop the else it belongs to");
  if (condition_uses_scalar(node.test))
    return decline("condition uses .item()/.tolist() (GM106, out of scope)");
  if (context.analysis.mutates_state(node.body) || context.analysis.mutates_state(node.orelse))
    return decline("a branch mutates state (attribute/subscript store or in-place call)");
  std::string torch(context.analysis.torch_name());
  if (torch.empty()) return decline("torch is not imported under a known name");
  Condition condition;
  if (std::string why = split_condition(context, node, condition); !why.empty())
    return decline(why);
  Built built;
  if (std::string why = build_tree(context, node, path, condition, torch, speculation, built);
      !why.empty())
    return decline(why);

  Plan plan;
  plan.statement = &node;
  plan.torch = torch;
  plan.returns = built.returns;
  plan.static_prefix = condition.prefix;
  plan.tail = built.planner->tail;
  plan.tail_statements = built.planner->tail_statements;
  plan.root = std::move(built.root);
  std::vector<Tree*> leaves;
  leaves_of(*plan.root, leaves);
  if (!plan.returns) {
    if (std::string why = merge_set(context, node, path, leaves, plan); !why.empty())
      return decline(why);
  }
  if (std::string why = merges_constant(leaves, plan); !why.empty()) return decline(why);
  if (std::string why = shares_merged_tensor(context, node, leaves, plan); !why.empty())
    return decline(why);
  if (std::string why = reads_bound(context, node, path, leaves); !why.empty()) return decline(why);
  if (plan.returns) plan.return_arity = common_arity(leaves);
  plan.static_operands = condition.static_operands;
  plan.masked_reads = built.planner->masked_reads;
  if (std::string why = check_masked_reads(context, *built.planner, plan); !why.empty())
    return decline(why);
  if (speculation != nullptr) {  // the operands are read before the if
    speculation->local.clear();
    speculation->derived.clear();
  }
  for (const Tree* leaf : leaves) plan.defers |= !leaf->deferred.empty();
  bool raises =
      std::any_of(leaves.begin(), leaves.end(), [](Tree* leaf) { return leaf->raises(); });
  if (raises) {
    std::vector<const ast::Node*> computed(node.body.begin(), node.body.end());
    computed.insert(computed.end(), node.orelse.begin(), node.orelse.end());
    computed.insert(computed.end(), plan.tail_statements.begin(), plan.tail_statements.end());
    if (plan.tail != nullptr) computed.push_back(plan.tail);
    if (const ast::expr* index = first_index(computed))
      return decline("a branch raises, and another branch indexes `" +
                     short_text(node_text(context, *index)) +
                     "`, which may raise ahead of the guard where the original raises first");
  }
  if (raises && (built.planner->expensive || plan.defers))
    return decline(built.planner->expensive
                       ? "a branch raises and a branch calls code (a torch.cond branch cannot "
                         "raise as the original does)"
                       : "a branch raises and a branch records a call");
  if (plan.defers && (built.planner->expensive || built.planner->splits != 1))
    return decline(built.planner->expensive
                       ? "a branch records a call and calls code (torch.cond cannot record it)"
                       : "a branch records a call under nested conditions");
  if (built.planner->expensive) {
    if (std::string why = plan_cond(context, path, leaves, plan); !why.empty()) return decline(why);
  } else if (!plan.defers && !raises && plan.masked_reads.empty() && leaves.size() == 2 &&
             !plan.root->on_true->is_split() && !plan.root->on_false->is_split()) {
    // In training, where_ok says no (the unselected side's gradients); torch.cond over
    // the branches as written then selects without a break, where it can (not over a
    // subscript by a tensor index: Dynamo reads it with .item(), a failed compile there).
    plan.training_cond =
        !built.planner->pure_helper && cond_operands(context, path, leaves, plan).empty();
    if (!plan.training_cond) plan.operands.clear();
  }
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
  auto decline = [&](std::string reason) {
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
        "a conditional expression that is not the whole value of an assignment to one name "
        "or of a return");
  }
  std::vector<BlockRef> path;
  if (!find_path(context.module.body, nullptr, &statement, path))
    return decline("statement not found in the module");
  for (const BlockRef& ref : path)
    if (auto* owner = ast::as<ast::If>(ref.owner); owner && is_where_ok_test(context, owner->test))
      return decline("fallback branch of an already predicated if");
  std::string torch(context.analysis.torch_name());
  if (torch.empty()) return decline("torch is not imported under a known name");
  if (condition_uses_scalar(e.test))
    return decline("condition uses .item()/.tolist() (GM106, out of scope)");
  for (const ast::expr* value : {e.body, e.orelse})
    if (const ast::expr* number = number_literal(value))
      return decline("the value `" + short_text(node_text(context, *number)) +
                     "` is a Python number: torch.where needs tensors on both sides, and a "
                     "tensor in its place computes in float32 where Python computes in float64");
  Planner planner(context);
  planner.torch_ = torch;
  planner.speculation = speculation;
  Plan plan;
  plan.root = std::make_unique<Tree>();
  if (!planner.build_conditional(e, var, *plan.root)) return decline(planner.error);
  if (planner.expensive)
    return decline(
        "a conditional expression calling a submodule or function (torch.cond "
        "predicates if statements)");
  std::vector<Tree*> leaves;
  leaves_of(*plan.root, leaves);
  if (std::string why = reads_bound(context, statement, path, leaves); !why.empty())
    return decline(why);
  plan.statement = &statement;
  plan.torch = torch;
  plan.returns = var.empty();
  if (!plan.returns) plan.merge = {var};
  if (std::string why = shares_merged_tensor(context, statement, leaves, plan); !why.empty())
    return decline(why);
  plan.temp_count = planner.temps;
  plan.split_count = planner.splits;
  plan.masked_reads = planner.masked_reads;
  if (std::string why = check_masked_reads(context, planner, plan); !why.empty())
    return decline(why);
  result.plan = std::move(plan);
  return result;
}

}  // namespace

std::string check_unpredicated(const Context& context, const ast::stmt& statement) {
  std::vector<BlockRef> path;
  return check_statement(context, statement, path);
}

PlanResult plan_statement(const Context& context, const ast::stmt& statement,
                          bool check_enclosing) {
  PlanResult plain = plan_speculating(context, statement, [&](sema::Speculation* speculation) {
    return plan_once(context, statement, check_enclosing, speculation);
  });
  if (plain.plan && plain.plan->covered_by != nullptr) return plain;
  PlanResult tail = plan_tail(context, statement, nullptr);
  if (tail.plan) return tail;
  // only tail duplication takes an else branch holding an if, or a Python value: say why
  // it could not
  bool tail_tried = plain.reason.find("else branch holding another if") != std::string::npos ||
                    plain.reason.find("torch.where selects tensors only") != std::string::npos;
  if (tail_tried && tail.reason.find("no branch value is a Python number") == std::string::npos)
    plain.reason += "; " + tail.reason;
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
  if (plain.reason.find("is a Python number") != std::string::npos)
    plain.reason += "; " + tail.reason;
  return plain;
}

}  // namespace graphmend::rewrite::where_detail
