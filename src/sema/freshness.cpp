// Freshness (Analysis::why_not_fresh): whether a tensor was created by the running call of
// its function. An in-place update of such a tensor cannot reach anything a caller holds:
// no caller passed it in (compiled code writes a mutated input back) or saved it for
// backward (an in-place update bumps the version counter a saved backward checks).
#include <algorithm>
#include <string>
#include <vector>

#include "ast/functions.h"
#include "sema/analysis_impl.h"
#include "sema/helpers.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

namespace {

constexpr int kMaxFreshDepth = 16;

// Calls `visit` on every node below `root`, not entering lambdas, nested defs and classes
// when `own_body_only` is set.
template <class Visit>
void walk_nodes(const ast::Node* root, bool own_body_only, Visit& visit) {
  if (own_body_only) return ast::walk_own_body(root, visit);
  ast::walk(root, [&](const ast::Node* n) {
    visit(n);
    return true;
  });
}

class FreshnessCheck {
 public:
  explicit FreshnessCheck(const AnalysisImpl& analysis) : a_(analysis) {}

  std::string why;  // the first reason found

  bool value(const ast::expr* e, ScopeId scope, int depth) {
    if (depth > kMaxFreshDepth) return fail(*e, "is defined too many steps away to follow");
    switch (e->kind) {
      case ast::Kind::Name:
        return name(*as<ast::Name>(e), scope, depth);
      case ast::Kind::BinOp: {
        const auto* b = as<ast::BinOp>(e);
        return new_tensor_of(*e, {b->left, b->right}, scope);
      }
      case ast::Kind::UnaryOp: {
        const auto* u = as<ast::UnaryOp>(e);
        if (u->op == ast::UnaryOpKind::USub || u->op == ast::UnaryOpKind::Invert)
          return new_tensor_of(*e, {u->operand}, scope);
        return fail(*e, "may return its operand");  // `+x` is x for a tensor
      }
      case ast::Kind::Compare:
        if (is_tensor_kind(a_.kind_of(*e))) return true;
        return fail(*e, "is not shown to be a tensor");
      case ast::Kind::Call:
        return call(*as<ast::Call>(e), scope, depth);
      case ast::Kind::Subscript:  // a view without overlap (basic indexing) or a copy
        return value(as<ast::Subscript>(e)->value, scope, depth + 1);
      case ast::Kind::IfExp: {
        const auto* c = as<ast::IfExp>(e);
        return value(c->body, scope, depth + 1) && value(c->orelse, scope, depth + 1);
      }
      case ast::Kind::Tuple:
        for (const ast::expr* element : as<ast::Tuple>(e)->elts) {
          if (is<ast::Starred>(element) || !value(element, scope, depth + 1)) return false;
        }
        return true;
      default:
        return fail(*e, "is not shown to be a tensor the traced code created");
    }
  }

  // No function involved may turn grad mode on or off: with grad mode off at the update
  // (checked at run time) and unchanged since the tensor was made, nothing saved it.
  bool keeps_grad_mode(const ast::Node* function) {
    for (const ast::Node* seen : scanned_)
      if (seen == function) return true;
    scanned_.push_back(function);
    const ast::Node* found = nullptr;
    auto visit = [&](const ast::Node* n) {
      std::string_view id;
      if (const auto* name = as<ast::Name>(n)) id = name->id;
      if (const auto* attr = as<ast::Attribute>(n)) id = attr->attr;
      if (found == nullptr && !id.empty() && has_fact(TorchFact::GradModeChange, id)) found = n;
    };
    walk_nodes(function, false, visit);
    if (found == nullptr) return true;
    why = "`" + std::string(function_name(function)) + "` changes grad mode (`" +
          quote_source(a_.source(), *found, 40) +
          "`): a tensor it made with grad on may be saved for backward";
    return false;
  }

  ScopeId scope_of_function(const ast::Node* function) const {
    const auto& functions = a_.functions();
    for (size_t i = 0; i < functions.size(); ++i)
      if (functions[i].node == function) return ScopeId::for_function(static_cast<int>(i));
    return ScopeId();
  }

 private:
  bool fail(const ast::Node& at, std::string_view reason) {
    if (why.empty()) why = "`" + quote_source(a_.source(), at, 40) + "` " + std::string(reason);
    return false;
  }

  // Arithmetic makes a new tensor whenever it makes a tensor at all (the run-time check
  // asks that the updated value is one); only operands all known not to be tensors (numbers,
  // numpy) are refused, like a method of a known non-tensor.
  bool new_tensor_of(const ast::expr& e, std::initializer_list<const ast::expr*> operands,
                     ScopeId scope) {
    for (const ast::expr* operand : operands)
      if (!a_.known_non_tensor(operand, scope)) return true;
    return fail(e, "is arithmetic on values known not to be tensors");
  }

  bool name(const ast::Name& n, ScopeId scope, int depth) {
    const Scope& own = a_.scopes()[scope.index];
    if (!scope.is_function() || own.globals.count(n.id) || own.nonlocals.count(n.id))
      return fail(n, "is not a local variable");
    if (rebound_by_nested_scope(scope, n.id))
      return fail(n, "is assigned by a nested function (nonlocal)");
    Flow* flow = a_.flow_for_scope(scope);
    if (flow == nullptr || !flow->var_ids.count(n.id) || flow->node_at(n.begin) < 0)
      return fail(n, "is not a local variable");
    int node = flow->node_at(n.begin);
    bool any = false;
    for (uint32_t d : flow->defs_of_var[flow->var_ids.at(n.id)]) {
      if (!flow->reaches(d, static_cast<uint32_t>(node))) continue;
      const Def& def = flow->defs[d];
      if (def.source == Def::Source::Unbound) return fail(n, "may be unbound");
      any = true;
      if (!definition(n, def, scope, depth)) return false;
    }
    return any || fail(n, "is not bound before it is read");
  }

  bool rebound_by_nested_scope(ScopeId scope, std::string_view name) const {
    const auto& scopes = a_.scopes();
    for (size_t i = 0; i < scopes.size(); ++i) {
      if (!scopes[i].nonlocals.count(name)) continue;
      for (ScopeId s = scopes[i].parent; s.has_value(); s = scopes[s.index].parent) {
        if (s == scope) return true;
        if (s.is_module()) break;
      }
    }
    return false;
  }

  bool definition(const ast::Name& n, const Def& def, ScopeId scope, int depth) {
    switch (def.source) {
      case Def::Source::Value:
        return value(def.value, scope, depth + 1);
      case Def::Source::Unpack: {
        const auto* tuple = as<ast::Tuple>(def.value);
        if (tuple == nullptr) return value(def.value, scope, depth + 1);  // a call's tuple
        if (def.index < 0 || static_cast<uint32_t>(def.index) >= tuple->elts.size)
          return fail(n, "is unpacked from a value it cannot follow");
        return value(tuple->elts[static_cast<uint32_t>(def.index)], scope, depth + 1);
      }
      case Def::Source::Param:
        return parameter(n, *as<ast::arg>(def.origin), scope, depth);
      default:
        return fail(n, "is bound other than by an assignment (in place, a loop, a with...)");
    }
  }

  // A parameter of a function nested in another, every call of which (all in the enclosing
  // function, as direct calls) passes a tensor the enclosing function created.
  bool parameter(const ast::Name& n, const ast::arg& param, ScopeId scope, int depth) {
    const FunctionInfo& inner = a_.functions()[static_cast<size_t>(scope.function())];
    const auto* def = as<ast::FunctionDef>(inner.node);
    const FunctionInfo* outer = a_.function_of(inner.node);
    if (inner.owner_class != nullptr || outer == nullptr || def == nullptr)
      return fail(n,
                  "is a parameter of a function that is not nested in another one "
                  "(its callers are not all in view)");
    if (!def->decorator_list.empty()) return fail(n, "is a parameter of a decorated function");
    if (!keeps_grad_mode(outer->node)) return false;
    ScopeId outer_scope = scope_of_function(outer->node);
    const Binding* b = a_.lookup(outer_scope, def->name);
    if (b == nullptr || b->conflicting || b->kind != BindKind::Function ||
        b->definition != inner.node || rebound_by_nested_scope(outer_scope, def->name))
      return fail(n, "is a parameter of a nested function whose name is rebound");
    std::vector<const ast::Call*> calls;
    if (!direct_calls(*def, *outer, outer_scope, calls))
      return fail(n, "is a parameter of a nested function used other than by direct calls in `" +
                         std::string(function_name(outer->node)) + "`");
    for (const ast::Call* c : calls) {
      const ast::expr* argument = argument_for(*def, param, *c);
      if (argument == nullptr) return fail(*c, "passes it by default, by *args or **kwargs");
      if (!value(argument, outer_scope, depth + 1)) return false;
    }
    return true;
  }

  // Every use of `inner`'s name in `outer` is the callee of a call evaluated in `outer`.
  bool direct_calls(const ast::FunctionDef& inner, const FunctionInfo& outer, ScopeId outer_scope,
                    std::vector<const ast::Call*>& calls) const {
    std::vector<const ast::Name*> callees, uses;
    auto visit = [&](const ast::Node* node) {
      if (const auto* c = as<ast::Call>(node)) {
        const auto* callee = as<ast::Name>(c->func);
        if (callee != nullptr && callee->id == inner.name && a_.scope_of(c) == outer_scope) {
          callees.push_back(callee);
          calls.push_back(c);
        }
      }
      if (const auto* name = as<ast::Name>(node); name && name->id == inner.name)
        uses.push_back(name);
    };
    walk_nodes(outer.node, false, visit);
    for (const ast::Name* use : uses)
      if (std::find(callees.begin(), callees.end(), use) == callees.end()) return false;
    return true;
  }

  bool call(const ast::Call& c, ScopeId scope, int depth) {
    if (find_keyword(c, "out") != nullptr || find_keyword(c, "inplace") != nullptr)
      return fail(c, "may write into an existing tensor (out=, inplace=)");
    Callee callee = a_.resolve_call(c);
    const auto* method = as<ast::Attribute>(c.func);
    switch (callee.kind) {
      case CalleeKind::TorchFunction:
        return torch_call(c, callee.qualified_name, scope, depth);
      case CalleeKind::LocalFunction:
        if (is<ast::Name>(c.func)) return returns_fresh(c, callee.definition, depth);
        return fail(c, "calls a method (a subclass may override it)");
      case CalleeKind::TensorMethod:
      case CalleeKind::Unknown:
        if (method != nullptr && a_.qualify(c.func, scope).empty())
          return method_call(c, *method, scope, depth);
        break;
      default:
        break;
    }
    return fail(c, "is not shown to return a new tensor");
  }

  bool torch_call(const ast::Call& c, std::string_view q, ScopeId scope, int depth) {
    constexpr std::string_view kFunctional = "torch.nn.functional.";
    if (starts_with(q, kFunctional) && has_fact(TorchFact::FreshFunctional, q.substr(20)))
      return true;
    std::string_view op = q.substr(6);  // after "torch."
    if (op.find('.') == std::string_view::npos) {
      if (has_fact(TorchFact::FreshResult, op)) return true;
      if (has_fact(TorchFact::ViewOfReceiver, op) && !c.args.empty())
        return value(c.args[0], scope, depth + 1);
    }
    return fail(c, "is not shown to return a new tensor");
  }

  bool method_call(const ast::Call& c, const ast::Attribute& method, ScopeId scope, int depth) {
    if (a_.known_non_tensor(method.value, scope)) return fail(c, "is not a tensor method call");
    if (has_fact(TorchFact::FreshResult, method.attr)) return true;
    if (has_fact(TorchFact::ViewOfReceiver, method.attr))
      return value(method.value, scope, depth + 1);
    return fail(c, "is not shown to return a new tensor");
  }

  // A module function or nested function whose every return is a new tensor.
  bool returns_fresh(const ast::Call& c, const ast::Node* definition, int depth) {
    const auto* def = as<ast::FunctionDef>(definition);
    if (def == nullptr || !def->decorator_list.empty())
      return fail(c, "calls a function that is decorated or not a plain def");
    if (!keeps_grad_mode(def)) return false;
    ScopeId scope = scope_of_function(def);
    if (!scope.has_value()) return fail(c, "calls a function it cannot follow");
    bool ok = true;
    auto visit = [&](const ast::Node* n) {
      if (!ok) return;
      if (is<ast::Yield>(n) || is<ast::YieldFrom>(n)) ok = fail(c, "calls a generator");
      const auto* r = as<ast::Return>(n);
      if (r != nullptr && r->value != nullptr) ok = value(r->value, scope, depth + 1);
    };
    for (const ast::stmt* s : def->body) walk_nodes(s, true, visit);
    return ok;
  }

  const AnalysisImpl& a_;
  std::vector<const ast::Node*> scanned_;
};

}  // namespace

std::string AnalysisImpl::why_not_fresh(const ast::expr& e) const {
  ScopeId scope = scope_of(&e);
  if (!scope.is_function()) return "`" + quote_source(source_, e, 40) + "` is at module level";
  FreshnessCheck check(*this);
  if (!check.keeps_grad_mode(functions_[static_cast<size_t>(scope.function())].node))
    return check.why;
  // Definitions' kinds are what the text shows: never under a speculation.
  Speculation* active = speculation_;
  speculation_ = nullptr;
  bool fresh = check.value(&e, scope, 0);
  speculation_ = active;
  return fresh ? std::string() : check.why;
}

}  // namespace graphmend::sema
