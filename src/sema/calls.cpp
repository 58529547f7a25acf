// What a call resolves to: print, a logger method, warnings.warn, a torch function, a
// tensor method, a submodule, a local function or another builtin.
#include "sema/analysis_impl.h"
#include "sema/helpers.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

bool AnalysisImpl::is_logger_expr(const ast::expr* e, ScopeId scope) const {
  if (const auto* name = as<ast::Name>(e)) {
    const Binding* b = lookup(scope, name->id);
    return b != nullptr && !b->conflicting && b->kind == BindKind::Logger;
  }
  if (const auto* call = as<ast::Call>(e)) {
    std::string q = qualify(call->func, scope);
    return ends_with(q, "logging.getLogger") || ends_with(q, "logging.get_logger");
  }
  if (const auto* attribute = as<ast::Attribute>(e)) return is_logger_attribute(*attribute, scope);
  return false;
}

// `self.<attr>` in a method, where the class (or a base of this module) sets <attr> only ever
// to loggers: `self.logger = logging.getLogger(__name__)`, or a module-level logger.
bool AnalysisImpl::is_logger_attribute(const ast::Attribute& a, ScopeId scope) const {
  const auto* self = as<ast::Name>(a.value);
  if (self == nullptr || a.ctx != ast::ExprContext::Load) return false;
  ClassId klass = self_class_of_scope(scope, self->id);
  if (!klass.has_value() || find_method(klass, a.attr) != nullptr) return false;
  LoggerSets sets;
  count_logger_sets(klass, a.attr, 0, sets);
  return sets.loggers > 0 && sets.others == 0;
}

void AnalysisImpl::count_logger_sets(ClassId klass, std::string_view attr, int depth,
                                     LoggerSets& sets) const {
  if (!klass.has_value() || depth > 32) return;
  for (const auto& [name, value] : classes_[klass.index].pending_attrs) {
    if (name != attr) continue;
    // a logger read from another attribute is not followed: one step, no cycles
    bool logger = !is<ast::Attribute>(value) && is_logger_expr(value, scope_of(value));
    ++(logger ? sets.loggers : sets.others);
  }
  for (ClassId base : classes_[klass.index].local_bases)
    count_logger_sets(base, attr, depth + 1, sets);
}

ClassId AnalysisImpl::self_class_of_scope(ScopeId scope, std::string_view receiver) const {
  if (!scope.is_function()) return ClassId();
  int f = scope.function();
  ClassId klass = function_class_[f];
  if (!klass.has_value() || is_staticmethod(functions_[f].node)) return ClassId();
  if (first_param(functions_[f].node) != receiver) return ClassId();
  return klass;
}

const ast::expr* argument_for(const ast::FunctionDef& def, const ast::arg& param,
                              const ast::Call& call, size_t bound) {
  for (const ast::expr* a : call.args)
    if (is<ast::Starred>(a)) return nullptr;
  for (const ast::keyword* k : call.keywords)
    if (k->arg.empty()) return nullptr;
  size_t position = 0;
  bool positional = false;
  for (auto* list : {&def.args->posonlyargs, &def.args->args}) {
    for (const ast::arg* p : *list) {
      if (p == &param) positional = true;
      if (!positional) ++position;
    }
  }
  if (positional && position < bound) return nullptr;
  if (positional && position - bound < call.args.size)
    return call.args[static_cast<uint32_t>(position - bound)];
  const ast::keyword* k = find_keyword(call, param.arg);
  if (k != nullptr &&
      (positional || std::find(def.args->kwonlyargs.begin(), def.args->kwonlyargs.end(), &param) !=
                         def.args->kwonlyargs.end()))
    return k->value;
  return nullptr;
}

Callee AnalysisImpl::resolve_call(const ast::Call& call) const {
  Callee out;
  ScopeId scope = scope_of(&call);
  const ast::expr* func = call.func;
  if (const auto* name = as<ast::Name>(func)) {
    const Binding* b = lookup(scope, name->id);
    out.qualified_name = std::string(name->id);
    if (b == nullptr) {
      if (name->id == "print") {
        out.kind = CalleeKind::Print;
      } else if (has_fact(TorchFact::Builtin, name->id)) {
        out.kind = CalleeKind::Builtin;
      }
      return out;
    }
    if (b->conflicting) return out;
    if (b->kind == BindKind::Function) {
      out.kind = CalleeKind::LocalFunction;
      out.definition = b->definition;
      return out;
    }
  }
  std::string q = qualify(func, scope);
  if (!q.empty()) {
    out.qualified_name = q;
    if (starts_with(q, "torch.")) {
      out.kind = CalleeKind::TorchFunction;
    } else if (q == "warnings.warn") {
      out.kind = CalleeKind::WarningsWarn;
    } else if (starts_with(q, "logging.") && has_fact(TorchFact::LoggerMethod, q.substr(8))) {
      out.kind = CalleeKind::LoggerMethod;
    }
    return out;
  }
  const auto* attr = as<ast::Attribute>(func);
  if (attr == nullptr) return out;
  out.qualified_name = std::string(attr->attr);
  if (has_fact(TorchFact::LoggerMethod, attr->attr) && is_logger_expr(attr->value, scope)) {
    out.kind = CalleeKind::LoggerMethod;
    out.qualified_name = "logging.Logger." + std::string(attr->attr);
    return out;
  }
  if (const auto* recv = as<ast::Name>(attr->value)) {
    ClassId klass = self_class_of_scope(scope, recv->id);
    if (klass.has_value()) {
      if (const ast::Node* m = find_method(klass, attr->attr)) {
        out.kind = CalleeKind::LocalFunction;
        out.definition = m;
        out.qualified_name =
            std::string(classes_[klass.index].node->name) + "." + out.qualified_name;
        return out;
      }
      if (classes_[klass.index].is_module) {
        out.kind = CalleeKind::SelfSubmodule;
        out.qualified_name = "self." + out.qualified_name;
      }
      return out;
    }
    const Binding* b = lookup(scope, recv->id);
    if (b && !b->conflicting && (b->kind == BindKind::Class || b->kind == BindKind::Instance)) {
      if (const ast::Node* m = find_method(b->class_index, attr->attr)) {
        out.kind = CalleeKind::LocalFunction;
        out.definition = m;
        return out;
      }
    }
  }
  if (is_tensor_kind(kind_rec(attr->value, scope, 0))) out.kind = CalleeKind::TensorMethod;
  return out;
}

}  // namespace graphmend::sema
