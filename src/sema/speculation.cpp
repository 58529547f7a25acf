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

#include "ast/walk.h"
#include "sema/analysis_impl.h"
#include "sema/helpers.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

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
  // a parameter declared a number or a bool (annotation, default) is not assumed a tensor,
  // nor, where numbers may be assumed, a local that may be one or a flag defaulting to None
  if (holds_number_parameter(name, scope) || may_assume_number(name, scope) ||
      is_flag_parameter(name, scope))
    return false;
  const ast::stmt* site = speculation_->site;
  // not in `local`: the read sees the value before the site, which the check reads
  return site != nullptr && scope_of(site) == scope && is_definitely_bound_before(*site, name.id) &&
         !known_non_tensor(&name, scope) && !known_non_tensor_before(*site, name.id);
}

// A parameter declared a number or a bool (is_number_parameter) that still holds the
// argument where `name` reads it: kornia's `gain: Union[float, Tensor] = 1.0` is rebound to
// `gain.to(...)` before its guard reads it, and may be a tensor there.
bool AnalysisImpl::holds_number_parameter(const ast::Name& name, ScopeId scope) const {
  if (!is_number_parameter(name, scope, true)) return false;
  std::vector<const Def*> defs = reaching_defs(name, scope);
  return std::all_of(defs.begin(), defs.end(),
                     [](const Def* def) { return def->source == Def::Source::Param; });
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
  if (!klass.has_value() || find_method(klass, first->attr) != nullptr) return false;
  if (hops > 1) return true;
  // a flag or setting the class sets only to literals (`self.training_flag = True`) is not
  AttributeSets sets = attribute_sets(klass, first->attr);
  return sets.constants == 0 || sets.tensors > 0 || sets.others > 0;
}

// Whether every definition of `name` reaching it is `a or b` / `a and b` with an operand the
// text shows to be a tensor (`has_pads = flag or mask.any()`): Python's `or`/`and` return one
// of their operands, so the name holds a Python value or that tensor, as run time decides.
// The check `runtime.tensors(name)` tells which; the DataScalar kind the text gives such a
// name (it is data-dependent) says nothing against its being a tensor.
bool AnalysisImpl::bound_to_boolean_operator_over_tensor(const ast::Name& name,
                                                         ScopeId scope) const {
  bool any = false;
  for (const Def* def : reaching_defs(name, scope)) {
    const auto* op = def->source == Def::Source::Value ? as<ast::BoolOp>(def->value) : nullptr;
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
  if (active->class_evidence) return class_evidence_kind(e, scope, depth);
  if (const auto* name = as<ast::Name>(e); name && in_list(name->id, active->derived)) {
    return ValueKind::Tensor;
  }
  speculation_ = nullptr;
  ValueKind shown = kind_rec(e, scope, depth);
  const auto* name = as<ast::Name>(e);
  // `has_pads = flag or mask.any()`, or a scalar mended code holds as a tensor
  bool maybe_tensor = shown == ValueKind::DataScalar && name != nullptr &&
                      (bound_to_boolean_operator_over_tensor(*name, scope) ||
                       (options_.hold_scalars && holds_scalar(*name, scope)));
  speculation_ = active;
  if (shown != ValueKind::Other && !maybe_tensor) return shown;
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

namespace {

// Whether `value` reads an attribute `<name>.<attr>`.
bool reads_attribute(const ast::expr* value, std::string_view attr) {
  return ast::contains(value, [&](const ast::Node* n) {
    const auto* read = as<ast::Attribute>(n);
    return read && read->attr == attr && is<ast::Name>(read->value);
  });
}

}  // namespace

// Whether the class (or a local base) registers `attr` as a parameter or buffer.
bool AnalysisImpl::class_registers(ClassId klass, std::string_view attr, int depth) const {
  if (!klass.has_value() || depth > 32) return false;
  const ClassInfo& k = classes_[klass.index];
  if (k.is_module && in_list(attr, k.registered_tensors)) return true;
  return std::any_of(k.local_bases.begin(), k.local_bases.end(),
                     [&](ClassId base) { return class_registers(base, attr, depth + 1); });
}

// Counts the assignments `self.<attr> = value` in the methods of the class and its local
// bases, other than of None or of a value computed from `<x>.<attr>`, by what the text shows
// of the value.
void AnalysisImpl::count_attribute_sets(ClassId klass, std::string_view attr, int depth,
                                        AttributeSets& sets) const {
  if (!klass.has_value() || depth > 32) return;
  for (const auto& [name, value] : classes_[klass.index].pending_attrs) {
    // `self.sigmas = None` until it is set; `self.sigmas = self.sigmas.to(device)` keeps it
    if (name != attr || is_none_constant(value) || reads_attribute(value, attr)) continue;
    // a literal, or a parameter declared a number or bool (`self.momentum = momentum` from
    // `momentum=0.95`): a setting
    const auto* parameter = as<ast::Name>(value);
    ScopeId scope = scope_of(value);
    if (is<ast::Constant>(value) || (parameter != nullptr && scope.is_function() &&
                                     is_number_parameter(*parameter, scope, true)))
      ++sets.constants;
    else
      ++(is_tensor_kind(kind_rec(value, scope, 1)) ? sets.tensors : sets.others);
  }
  for (ClassId base : classes_[klass.index].local_bases)
    count_attribute_sets(base, attr, depth + 1, sets);
}

AnalysisImpl::AttributeSets AnalysisImpl::attribute_sets(ClassId klass,
                                                         std::string_view attr) const {
  // what the text shows of each value: `self.x = self.x * 2` must not ask about `self.x` again
  Speculation* active = speculate(nullptr);
  AttributeSets sets;
  count_attribute_sets(klass, attr, 0, sets);
  speculate(active);
  return sets;
}

// The class of `self` where `a` reads `self.<attr>` in one of its methods; none otherwise.
ClassId AnalysisImpl::self_attribute_class(const ast::Attribute& a, ScopeId scope) const {
  const auto* self = as<ast::Name>(a.value);
  if (self == nullptr || a.ctx != ast::ExprContext::Load) return {};
  return self_class_of_scope(scope, self->id);
}

// `self.<attr>` in a method, where the class registers <attr> as a parameter or buffer of an
// nn.Module, or sets it only ever to tensors (`self.sigmas = torch.from_numpy(...)`).
bool AnalysisImpl::class_sets_tensor(const ast::Attribute& a, ScopeId scope) const {
  ClassId klass = self_attribute_class(a, scope);
  if (!klass.has_value()) return false;
  if (class_registers(klass, a.attr, 0)) return true;
  AttributeSets sets = attribute_sets(klass, a.attr);
  return sets.tensors > 0 && sets.constants == 0 && sets.others == 0;
}

// `self.<attr>` in a method, where the class sets <attr> only ever to literals or to
// parameters declared numbers or bools (`self.p = p` from `p=0.5`), and registers no
// parameter or buffer of that name: a setting, not a tensor.
bool AnalysisImpl::class_sets_setting(const ast::Attribute& a, ScopeId scope) const {
  // what the class sets may compute with the attribute again (`self.count = self.count + n`):
  // asked once at a time
  if (in_class_sets_setting_) return false;
  ClassId klass = self_attribute_class(a, scope);
  if (!klass.has_value() || class_registers(klass, a.attr, 0)) return false;
  in_class_sets_setting_ = true;
  AttributeSets sets = attribute_sets(klass, a.attr);
  in_class_sets_setting_ = false;
  return sets.constants > 0 && sets.tensors == 0 && sets.others == 0;
}

namespace {

// torch's tensor type names: `torch.Tensor` and the legacy `torch.LongTensor`, ... that
// transformers annotates with (`labels: Optional[torch.LongTensor] = None`).
bool is_tensor_type_name(std::string_view qualified) {
  if (!starts_with(qualified, "torch.")) return false;
  std::string_view name = qualified.substr(6);
  return name == "nn.Parameter" || name == "nn.parameter.Parameter" ||
         (ends_with(name, "Tensor") && name.find('.') == std::string_view::npos);
}

// A string annotation of that form: a dotted name ending in `Tensor`, alone, in
// `Optional[...]` or with `| None` (`"torch.Tensor | None"`), not `"List[torch.Tensor]"`.
bool names_tensor_type_in_text(std::string_view text) {
  auto strip = [](std::string_view& t, std::string_view affix, bool prefix) {
    bool has = prefix ? starts_with(t, affix) : ends_with(t, affix);
    if (has) t = prefix ? t.substr(affix.size()) : t.substr(0, t.size() - affix.size());
    return has;
  };
  if (strip(text, "Optional[", true) && !strip(text, "]", false)) return false;
  strip(text, " | None", false);
  strip(text, "None | ", true);
  return ends_with(text, "Tensor") && std::all_of(text.begin(), text.end(), [](char c) {
           return c == '.' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9');
         });
}

}  // namespace

// Whether a parameter's annotation names a tensor type, alone or with None (Optional[...],
// Union[..., None], `X | None`; a string annotation naming one counts too) and its default,
// if any, is None: the author's word that the argument is a tensor or None, evidence for
// tagging, never proof. `Union[int, torch.Tensor]` is not (mostly a number).
bool AnalysisImpl::annotates_tensor(const ast::Node* parameter, ScopeId scope) const {
  const auto* arg = as<ast::arg>(parameter);
  if (arg == nullptr || arg->annotation == nullptr) return false;
  // `output_attentions: torch.Tensor | None = False`: the default says otherwise
  std::optional<Parameter> declared = find_parameter(scopes_[scope.index].node, arg->arg);
  if (declared && declared->default_value != nullptr && !is_none_constant(declared->default_value))
    return false;
  ScopeId outer = scope.is_function() ? scopes_[scope.index].parent : kModuleScope;
  if (!outer.has_value()) outer = kModuleScope;
  return names_tensor_type(arg->annotation, outer, 0);
}

// A parameter with neither annotation nor default, not a method's `self` or `cls`: what the
// caller passes, which the text does not say.
bool AnalysisImpl::is_plain_parameter(const ast::Node* parameter, ScopeId scope) const {
  const auto* arg = as<ast::arg>(parameter);
  if (arg == nullptr || arg->annotation != nullptr) return false;
  std::optional<Parameter> declared = find_parameter(scopes_[scope.index].node, arg->arg);
  if (!declared || declared->default_value != nullptr) return false;  // keyword-only, *args
  return !self_class_of_scope(scope, arg->arg).has_value();
}

bool AnalysisImpl::names_tensor_type(const ast::expr* annotation, ScopeId scope, int depth) const {
  if (annotation == nullptr || depth > 8) return false;
  if (const auto* text = as<ast::Constant>(annotation))
    return text->value.type == ast::ConstantValue::Type::Str &&
           names_tensor_type_in_text(text->value.text);
  // a union's members: each a tensor type or None, one at least a tensor type
  auto union_of_tensors = [&](const std::vector<const ast::expr*>& members) {
    bool tensor = false;
    for (const ast::expr* member : members) {
      if (is_none_constant(member)) continue;
      if (!names_tensor_type(member, scope, depth + 1)) return false;
      tensor = true;
    }
    return tensor;
  };
  if (const auto* either = as<ast::BinOp>(annotation);
      either && either->op == ast::OperatorKind::BitOr)
    return union_of_tensors({either->left, either->right});
  if (const auto* generic = as<ast::Subscript>(annotation)) {
    std::string q = qualify(generic->value, scope);
    if (q != "typing.Optional" && q != "typing.Union") return false;
    if (const auto* tuple = as<ast::Tuple>(generic->slice))
      return union_of_tensors({tuple->elts.begin(), tuple->elts.end()});
    return names_tensor_type(generic->slice, scope, depth + 1);
  }
  return is_tensor_type_name(qualify(annotation, scope));
}

// The kind of a Name or Attribute under a class_evidence Speculation: an attribute its class
// sets to a tensor is one; a name the text shows nothing of is what every definition reaching
// it computes under the same assumption (`sigma = self.sigmas[i]`).
ValueKind AnalysisImpl::class_evidence_kind(const ast::expr* e, ScopeId scope, int depth) const {
  if (const auto* attribute = as<ast::Attribute>(e)) {
    if (!class_sets_tensor(*attribute, scope)) return attribute_kind(*attribute, scope, depth);
    assume(e);
    return ValueKind::Tensor;
  }
  Speculation* active = speculation_;
  speculation_ = nullptr;
  ValueKind shown = kind_rec(e, scope, depth);
  speculation_ = active;
  const auto* name = as<ast::Name>(e);
  if (shown != ValueKind::Other || name == nullptr) return shown;
  bool any = false, all_bool = true;
  for (const Def* def : reaching_defs(*name, scope)) {
    if (def->source == Def::Source::Unbound) continue;
    if (def->source == Def::Source::Param &&
        (annotates_tensor(def->origin, scope) ||
         (speculation_->plain_parameters && is_plain_parameter(def->origin, scope)))) {
      assume(e);
      all_bool = false;
      any = true;
      continue;
    }
    if (def->source != Def::Source::Value || --evidence_budget_ < 0) return shown;
    ValueKind k = kind_rec(def->value, scope, depth + 1);
    if (!is_tensor_kind(k)) return shown;
    all_bool &= k == ValueKind::BoolTensor;
    any = true;
  }
  if (!any) return shown;
  return all_bool ? ValueKind::BoolTensor : ValueKind::Tensor;
}

bool AnalysisImpl::is_data_dependent_by_class(const ast::expr& condition, const ast::stmt& site,
                                              std::vector<const ast::expr*>& read) const {
  Speculation evidence;
  evidence.site = &site;
  evidence.class_evidence = true;
  evidence_budget_ = 64;  // names fan out over definitions: bound the work
  Speculation* before = speculate(&evidence);
  bool dependent = is_data_dependent(condition);
  speculate(before);
  read.insert(read.end(), evidence.assumed.begin(), evidence.assumed.end());
  return dependent;
}

bool AnalysisImpl::selects_tensors_by_parameter(const ast::IfExp& e, const ast::stmt& site,
                                                std::vector<const ast::expr*>& read) const {
  // a parameter tested for truth (`cumheights if reverse else cumwidths`) is a flag
  bool compares = false;
  ast::walk(e.test, [&](const ast::Node* n) {
    compares |= is<ast::Compare>(n);
    return !compares;
  });
  if (!compares) return false;
  Speculation evidence;
  evidence.site = &site;
  evidence.class_evidence = true;
  evidence_budget_ = 64;
  Speculation* before = speculate(&evidence);
  bool selects_tensors = is_tensor(*e.body) && is_tensor(*e.orelse);
  evidence.assumed.clear();  // the values' evidence: only the condition's is checked
  evidence.plain_parameters = true;
  bool dependent = selects_tensors && is_data_dependent(*e.test);
  speculate(before);
  read.insert(read.end(), evidence.assumed.begin(), evidence.assumed.end());
  return dependent;
}

bool AnalysisImpl::is_bool_tensor_by_parameter(const ast::expr& index,
                                               const ast::stmt& site) const {
  Speculation evidence;
  evidence.site = &site;
  evidence.class_evidence = true;
  evidence.plain_parameters = true;
  evidence_budget_ = 64;
  Speculation* before = speculate(&evidence);
  bool mask = is_bool_tensor(index);
  speculate(before);
  return mask;
}

}  // namespace graphmend::sema
