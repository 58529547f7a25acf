// [Where] planning the torch.cond form: a branch value calling a submodule or a local
// function that torch.cond can trace whole (cond_eligible), the operands of the two branch
// functions and the copies their returns need (torch.cond's branches may not return an
// input or a view of one).
#include <algorithm>
#include <set>

#include "ast/functions.h"
#include "ast/names.h"
#include "ast/walk.h"
#include "rewrite/where/planner.h"
#include "sema/aliasing.h"
#include "sema/binding.h"
#include "sema/torch_facts.h"

namespace graphmend::rewrite::where_detail {

using ast::Kind;

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
  if (contains_kind(def, {Kind::Global, Kind::Nonlocal, Kind::Try, Kind::With, Kind::Yield,
                          Kind::YieldFrom, Kind::Await}))
    return false;
  if (!trace_checked_ &&
      contains_kind(
          def, {Kind::If, Kind::For, Kind::While, Kind::Raise, Kind::Assert, Kind::IfExp,
                Kind::Lambda, Kind::ListComp, Kind::SetComp, Kind::DictComp, Kind::GeneratorExp}))
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

// Whether `n` is a branch, loop or assert whose test is a tensor (data, not a static value).
bool Planner::tests_tensor(const ast::Node& n) const {
  const ast::expr* test = nullptr;
  if (const auto* branch = ast::as<ast::If>(&n)) test = branch->test;
  if (const auto* loop = ast::as<ast::While>(&n)) test = loop->test;
  if (const auto* choice = ast::as<ast::IfExp>(&n)) test = choice->test;
  if (const auto* check = ast::as<ast::Assert>(&n)) test = check->test;
  return test != nullptr && tensor_test(*test);
}

// Whether `test` reads tensor data: a tensor, or `not` / `and` / `or` over one.
bool Planner::tensor_test(const ast::expr& test) const {
  if (const auto* negated = ast::as<ast::UnaryOp>(&test)) return tensor_test(*negated->operand);
  if (const auto* both = ast::as<ast::BoolOp>(&test)) {
    for (const ast::expr* value : both->values)
      if (tensor_test(*value)) return true;
    return false;
  }
  return analysis_.is_tensor(test);
}

// The calls of one statement of a cond-traceable helper (above), under its speculation.
bool Planner::traceable_calls(const ast::stmt& statement, int depth) const {
  bool traceable = true;
  auto visit = [&](const ast::Node* n) {
    if (n->kind == Kind::FunctionDef || n->kind == Kind::AsyncFunctionDef ||
        n->kind == Kind::ClassDef)
      traceable = false;
    // the exception a validation raises is built only when it raises, which fails the trace
    if (trace_checked_ && n->kind == Kind::Raise) return false;
    // a validation on tensor data is declined: [Trap] may make its raise an in-graph assert.
    // Another branch on tensor data is the helper's own site: mended there (torch.where), or
    // failing the trace, which runs the original statement
    if (trace_checked_ && tests_tensor(*n) && contains_kind(n, {Kind::Raise, Kind::Assert}))
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
        case sema::CalleeKind::Builtin:        // len, isinstance, range: Dynamo's trace checks them
        case sema::CalleeKind::SelfSubmodule:  // a layer, hooks and mode included
          traceable = trace_checked_;
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
    for (const ast::Name* name : ast::stores(&statement)) inside.local.push_back(name->id);
    return;
  }
  bool tensor = analysis_.is_tensor(*assign->value);
  for (const ast::expr* target : assign->targets) {
    const auto* name = ast::as<ast::Name>(target);
    if (name != nullptr && tensor) {
      inside.derived.push_back(name->id);
      continue;
    }
    for (const ast::Name* stored : ast::stores(target)) inside.local.push_back(stored->id);
  }
}

// Every value assumed inside a helper is one of its parameters, passed a tensor by `call`,
// or, in a method called on the caller's own `self`, an attribute of `self` the caller may
// assume too (the check before the statement reads the same text).
bool Planner::parameters_passed_tensors(const ast::FunctionDef& def, const ast::Call& call,
                                        const std::vector<const ast::expr*>& assumed) const {
  const auto* method = ast::as<ast::Attribute>(call.func);
  size_t bound = method != nullptr && !ast::is_staticmethod(&def) ? 1 : 0;
  const auto* receiver = bound == 1 ? ast::as<ast::Name>(method->value) : nullptr;
  const ast::arg* self = bound == 1 && !def.args->args.empty() ? def.args->args[0] : nullptr;
  bool same_self = receiver != nullptr && self != nullptr && receiver->id == self->arg;
  for (const ast::expr* value : assumed) {
    if (ast::is<ast::Attribute>(value)) {
      if (!same_self || ast::attribute_root(*value) != self->arg || !analysis_.is_tensor(*value))
        return false;
      continue;
    }
    const auto* name = ast::as<ast::Name>(value);
    const ast::arg* param = name != nullptr ? ast::parameter_named(def, name->id) : nullptr;
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

// cond_eligible, with helpers accepted whose control flow, validations (`raise`, `assert`)
// and builtin calls only Dynamo's trace can show traceable: the emitted site is behind
// runtime.cond_on, so a torch.cond Dynamo cannot trace runs the original statement. State a
// helper writes and Python scalars it reads are still declined: the first would not show in
// the trace of a site that runs eagerly, the second never traces.
bool Planner::cond_eligible_when_traced(const ast::expr& e) const {
  trace_checked_ = true;
  bool eligible = cond_eligible(e);
  trace_checked_ = false;
  return eligible;
}

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
  return sema::may_alias(context.analysis, value);
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

// torch.cond's operands: the tensor locals the branches read, and the merged variables a
// branch does not assign (returned as clones).
Problem cond_operands(const Context& context, const std::vector<BlockRef>& path,
                      const std::vector<Tree*>& leaves, Plan& plan) {
  std::set<std::string_view> locals = sema::function_locals(context.analysis, path);
  auto add_operand = [&](std::string_view name) {
    if (std::find(plan.cond.operands.begin(), plan.cond.operands.end(), name) ==
        plan.cond.operands.end())
      plan.cond.operands.push_back(std::string(name));
  };
  for (Tree* leaf : leaves) {
    for (const auto& [name, node_ptr] : leaf->reads) {
      if (locals.count(name) == 0) continue;
      if (context.analysis.is_tensor(*node_ptr)) {
        add_operand(name);
        continue;
      }
      // read from the enclosing function (a Python number kept from before the if): a
      // branch function assigning it too would make it that function's own local
      if (std::find(leaf->assigned.begin(), leaf->assigned.end(), name) != leaf->assigned.end())
        return {Reason::CondReassigned, "non-tensor local `" + std::string(name) +
                                            "` is read and reassigned in a torch.cond branch"};
    }
  }
  for (Tree* leaf : leaves) {
    if (plan.returns) continue;
    leaf->cond.returns.clear();
    for (std::string_view var : plan.merge) {
      if (leaf->env.count(var) == 0) {
        add_operand(var);
        leaf->cond.returns.push_back(std::string(var) + ".clone()");
      } else {
        leaf->cond.returns.push_back(std::string(var) + (leaf->alias[var] ? ".clone()" : ""));
      }
    }
  }
  if (plan.cond.operands.empty())
    return {Reason::Other, "torch.cond branches read no tensor operand"};
  return {};
}

namespace {

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
Problem kept_values_are_tensors(const Context& context, const std::vector<BlockRef>& path,
                                const std::vector<Tree*>& leaves, const Plan& plan) {
  const BlockRef& here = path.back();
  const ast::stmt& statement = *(*here.block)[here.index];
  for (const Tree* leaf : leaves) {
    for (std::string_view var : plan.returns ? std::vector<std::string_view>{} : plan.merge) {
      if (leaf->env.count(var) == 0 && number_before(context, path, var))
        return {Reason::PythonNumber, "`" + std::string(var) +
                                          "` keeps the Python number it holds before the if in "
                                          "a torch.cond branch, which returns tensors only"};
      if (leaf->env.count(var) == 0 && !tensor_before(context, statement, leaves, var))
        return {Reason::NotTensor,
                "`" + std::string(var) +
                    "` keeps its value in a torch.cond branch, and that value is not shown to be a "
                    "tensor before the if"};
    }
  }
  return {};
}

}  // namespace

// torch.cond (a branch calls code): exactly two branches, tensor operands, nothing
// returned aliased.
Problem plan_cond(const Context& context, const std::vector<BlockRef>& path,
                  const std::vector<Tree*>& leaves, Plan& plan) {
  if (leaves.size() != 2 || plan.root->on_true->is_split() || plan.root->on_false->is_split())
    return {Reason::NestedCall,
            "a branch calls a submodule/function inside a nested branch "
            "(torch.cond needs exactly two branches)"};
  if (Problem why = kept_values_are_tensors(context, path, leaves, plan); !why.empty()) return why;
  if (Problem why = cond_operands(context, path, leaves, plan); !why.empty()) return why;
  plan.cond.use = true;
  return {};
}

}  // namespace graphmend::rewrite::where_detail
