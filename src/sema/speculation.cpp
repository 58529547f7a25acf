// Speculation (see Speculation in sema.h): which values a rewrite may assume to be tensors
// and check at run time instead of proving from the text.
//
// A value may be assumed when the check, evaluated just before the speculation site, sees
// the same value the site reads: a local variable bound on every path to the site and not
// assigned earlier inside it (Speculation::local), or an attribute chain on a method's `self`
// (`self.running_max`, `self.lin.weight`) that is not a method. Evaluating either has no side
// effect beyond what speculating the site's values already does (attribute reads are pure, see
// purity.cpp).
#include <algorithm>
#include <utility>

#include "sema/analysis_impl.h"
#include "sema/helpers.h"

namespace graphmend::sema {

using ast::as;

Speculation* AnalysisImpl::speculate(Speculation* speculation) const {
  std::swap(speculation_, speculation);
  return speculation;
}

void AnalysisImpl::assume(const ast::expr* e) const {
  std::string_view text = source_.text().substr(e->begin, e->end - e->begin);
  auto& assumed = speculation_->assumed;
  bool seen = std::any_of(assumed.begin(), assumed.end(), [&](const ast::expr* other) {
    return source_.text().substr(other->begin, other->end - other->begin) == text;
  });
  if (!seen) assumed.push_back(e);
}

bool AnalysisImpl::may_assume_name(const ast::Name& name, ScopeId scope) const {
  if (!scope.is_function() || self_class_of_scope(scope, name.id).has_value()) return false;
  const auto& bindings = scopes_[scope.index].bindings;
  auto it = bindings.find(name.id);
  if (it == bindings.end()) return false;  // a global, builtin or closure variable
  switch (it->second.kind) {
    case BindKind::Param:
    case BindKind::Value:
    case BindKind::Other:
      break;
    default:
      return false;  // imports, functions, classes, loggers, instances of local classes
  }
  if (in_list(name.id, speculation_->local)) return false;
  // where numbers may be assumed, a parameter that may be one is not assumed a tensor
  if (may_assume_number(name, scope) || is_flag_parameter(name, scope)) return false;
  const ast::stmt* site = speculation_->site;
  return site != nullptr && scope_of(site) == scope && is_definitely_bound_before(*site, name.id) &&
         !known_non_tensor(&name, scope);
}

bool AnalysisImpl::may_assume_self_attribute(const ast::Attribute& a, ScopeId scope) const {
  const ast::expr* root = &a;
  const ast::Attribute* first = nullptr;
  int hops = 0;
  while (const auto* at = as<ast::Attribute>(root)) {
    if (at->ctx != ast::ExprContext::Load) return false;
    first = at;
    root = at->value;
    ++hops;
  }
  const auto* self = as<ast::Name>(root);
  if (self == nullptr || hops > 3) return false;
  ClassId klass = self_class_of_scope(scope, self->id);
  return klass.has_value() && find_method(klass, first->attr) == nullptr;
}

// Whether every definition of `name` reaching it is `a or b` / `a and b` with an operand the
// text shows to be a tensor (`has_pads = flag or mask.any()`): Python's `or`/`and` return one
// of their operands, so the name holds a Python value or that tensor, as run time decides.
// The check `runtime.tensors(name)` tells which; the DataScalar kind the text gives such a
// name (it is data-dependent) says nothing against its being a tensor.
bool AnalysisImpl::bound_to_boolean_operator_over_tensor(const ast::Name& name,
                                                         ScopeId scope) const {
  Flow* flow = flow_for_scope(scope);
  if (flow == nullptr) return false;
  auto var = flow->var_ids.find(name.id);
  int node = flow->node_at(name.begin);
  if (var == flow->var_ids.end() || node < 0) return false;
  bool any = false;
  for (uint32_t d : flow->defs_of_var[var->second]) {
    if (!flow->reaches(d, static_cast<uint32_t>(node))) continue;
    const Def& def = flow->defs[d];
    const auto* op = def.source == Def::Source::Value ? as<ast::BoolOp>(def.value) : nullptr;
    if (op == nullptr) return false;
    bool tensor_operand = std::any_of(op->values.begin(), op->values.end(), [&](auto* value) {
      return is_tensor_kind(kind_rec(value, scope, 1));
    });
    if (!tensor_operand) return false;
    any = true;
  }
  return any;
}

// The kind of a Name or Attribute when a speculation is active: what the text shows, else
// a tensor when the value may be assumed one (recorded), else what its parts show under
// the same speculation (`h.T` with `h` assumed).
ValueKind AnalysisImpl::speculated_kind(const ast::expr* e, ScopeId scope, int depth) const {
  Speculation* active = speculation_;
  if (const auto* name = as<ast::Name>(e); name && in_list(name->id, active->derived)) {
    return ValueKind::Tensor;
  }
  speculation_ = nullptr;
  ValueKind shown = kind_rec(e, scope, depth);
  const auto* name = as<ast::Name>(e);
  bool flag_or_tensor = shown == ValueKind::DataScalar && name != nullptr &&
                        bound_to_boolean_operator_over_tensor(*name, scope);
  speculation_ = active;
  if (shown != ValueKind::Other && !flag_or_tensor) return shown;
  if (name != nullptr) {
    if (!may_assume_name(*name, scope)) return shown;
    assume(e);
    return ValueKind::Tensor;
  }
  const auto* attribute = as<ast::Attribute>(e);
  if (may_assume_self_attribute(*attribute, scope)) {
    assume(e);
    return ValueKind::Tensor;
  }
  return attribute_kind(*attribute, scope, depth);
}

}  // namespace graphmend::sema
