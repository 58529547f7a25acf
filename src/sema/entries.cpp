// Classes (local bases, nn.Module subclasses, submodule attributes), entry points (what
// Dynamo traces) and the call graph that reaches further functions from them.
#include <algorithm>

#include "sema/analysis_impl.h"
#include "sema/helpers.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

ClassId AnalysisImpl::constructor_class(const ast::expr* e, ScopeId scope) const {
  for (int guard = 0; e != nullptr && guard < 16; ++guard) {
    const auto* call = as<ast::Call>(e);
    if (call == nullptr) return ClassId();
    if (const auto* name = as<ast::Name>(call->func)) {
      const Binding* b = lookup(scope, name->id);
      if (b && !b->conflicting && b->kind == BindKind::Class) return b->class_index;
      return ClassId();
    }
    // Model(...).to(device) / .eval() / .cuda(): the receiver's class
    const auto* attr = as<ast::Attribute>(call->func);
    if (attr == nullptr || !has_fact(TorchFact::ModuleChainMethod, attr->attr)) {
      return ClassId();
    }
    e = attr->value;
  }
  return ClassId();
}

const ast::Node* AnalysisImpl::find_method(ClassId class_index, std::string_view name,
                                           int depth) const {
  if (!class_index.has_value() || depth > 32) return nullptr;
  const ClassInfo& k = classes_[class_index.index];
  auto it = k.methods.find(name);
  if (it != k.methods.end()) return it->second;
  for (ClassId base : k.local_bases) {
    if (const ast::Node* m = find_method(base, name, depth + 1)) return m;
  }
  return nullptr;
}

const ast::Node* AnalysisImpl::module_forward(ClassId class_index) const {
  if (!class_index.has_value() || !classes_[class_index.index].is_module) return nullptr;
  return find_method(class_index, "forward");
}

namespace {
// torch.optim.Optimizer and the optimizers torch.optim exports (SGD, AdamW, ...); not
// torch.optim.lr_scheduler's classes.
bool is_torch_optimizer(std::string_view q) {
  if (q == "torch.optim.optimizer.Optimizer") return true;
  if (!starts_with(q, "torch.optim.")) return false;
  std::string_view last = q.substr(std::string_view("torch.optim.").size());
  return !last.empty() && last.find('.') == std::string_view::npos && last[0] >= 'A' &&
         last[0] <= 'Z';
}
}  // namespace

void AnalysisImpl::resolve_classes() {
  for (ClassInfo& k : classes_) {
    for (const ast::expr* base : k.node->bases) {
      if (const auto* name = as<ast::Name>(base)) {
        const Binding* b = lookup(k.scope, name->id);
        if (b && !b->conflicting && b->kind == BindKind::Class && b->class_index.has_value() &&
            classes_[b->class_index.index].node != k.node) {
          k.local_bases.push_back(b->class_index);
          continue;
        }
      }
      std::string q = qualify(base, k.scope);
      if (q.empty()) continue;
      if (q == "torch.nn.Module" || q == "torch.nn.modules.module.Module" ||
          ends_with(q, "PreTrainedModel") || ends_with(q, ".ModelMixin")) {
        k.torch_module_base = true;
      } else if (starts_with(q, "torch.nn.")) {
        std::string_view last = std::string_view(q).substr(q.rfind('.') + 1);
        if (!last.empty() && last[0] >= 'A' && last[0] <= 'Z') k.torch_module_base = true;
      }
      k.torch_optimizer_base = k.torch_optimizer_base || is_torch_optimizer(q);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (ClassInfo& k : classes_) {
      bool m = k.is_module || k.torch_module_base;
      bool o = k.is_optimizer || k.torch_optimizer_base;
      for (ClassId base : k.local_bases) {
        m = m || classes_[base.index].is_module;
        o = o || classes_[base.index].is_optimizer;
      }
      changed = changed || m != k.is_module || o != k.is_optimizer;
      k.is_module = m;
      k.is_optimizer = o;
    }
  }
  for (ClassInfo& k : classes_) {
    for (const auto& [attr, value] : k.pending_attrs) {
      ClassId c = constructor_class(value, k.scope);
      if (c.has_value()) k.attr_classes[attr] = c;
      // self.weight = nn.Parameter(...): nn.Module registers it
      const auto* call = as<ast::Call>(value);
      std::string q = call ? qualify(call->func, k.scope) : std::string();
      if (in_list(q, {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer",
                      "torch.nn.parameter.Buffer"}))
        k.registered_tensors.push_back(attr);
    }
  }
}

namespace {
enum Priority { kNone = 100 };
int priority(EntryReason r) {
  switch (r) {
    case EntryReason::CompileDecorator:
      return 1;
    case EntryReason::CompileCall:
      return 2;
    case EntryReason::CompileMethod:
      return 3;
    case EntryReason::ModuleForward:
      return 4;
    case EntryReason::Configured:
      return 5;
    case EntryReason::Library:
      return 6;
    case EntryReason::Reached:
      return 7;
    case EntryReason::None:
      break;
  }
  return kNone;
}
}  // namespace

void AnalysisImpl::find_entries() {
  auto mark = [&](const ast::Node* fn, EntryReason reason) {
    if (fn == nullptr) return;
    auto it = function_index_.find(fn);
    if (it == function_index_.end()) return;
    FunctionInfo& f = functions_[it->second];
    if (priority(reason) < priority(f.reason)) f.reason = reason;
  };
  for (size_t i = 0; i < functions_.size(); ++i) {
    const auto* decorators = decorators_of(functions_[i].node);
    ScopeId outer = ScopeId::for_function(function_parent_[i]);
    for (const ast::expr* d : *decorators) {
      const ast::expr* callee = d;
      if (const auto* call = as<ast::Call>(d)) callee = call->func;
      if (qualify(callee, outer) == "torch.compile") {
        mark(functions_[i].node, EntryReason::CompileDecorator);
      }
    }
  }
  for (const CallSite& site : all_calls_) {
    const ast::Call& call = *site.call;
    if (qualify(call.func, site.scope) == "torch.compile") {
      const ast::expr* target = call.args.empty() ? nullptr : call.args[0];
      if (target == nullptr) {
        if (const ast::keyword* k = find_keyword(call, "model")) target = k->value;
      }
      if (const auto* name = as<ast::Name>(target)) {
        const Binding* b = lookup(site.scope, name->id);
        if (b == nullptr || b->conflicting) continue;
        if (b->kind == BindKind::Function) mark(b->definition, EntryReason::CompileCall);
        if (b->kind == BindKind::Class || b->kind == BindKind::Instance) {
          mark(module_forward(b->class_index), EntryReason::CompileCall);
        }
      } else if (const auto* attr = as<ast::Attribute>(target)) {
        ClassId c = class_of_binding(attr->value, site.scope);
        if (c.has_value()) mark(find_method(c, attr->attr), EntryReason::CompileCall);
      }
      continue;
    }
    if (const auto* attr = as<ast::Attribute>(call.func);
        attr && attr->attr == "compile" && call.args.empty()) {
      ClassId c = class_of_binding(attr->value, site.scope);
      if (c.has_value()) mark(module_forward(c), EntryReason::CompileMethod);
    }
  }
  for (const ClassInfo& k : classes_) {
    if (!k.is_module) continue;
    auto it = k.methods.find("forward");
    if (it != k.methods.end()) mark(it->second, EntryReason::ModuleForward);
  }
  const std::vector<std::string>& named = options_.entry_points;
  for (const FunctionInfo& f : functions_) {
    if (std::find(named.begin(), named.end(), f.qualified_name) != named.end())
      mark(f.node, EntryReason::Configured);
  }
  if (options_.trace_all) {
    for (const FunctionInfo& f : functions_) mark(f.node, EntryReason::Library);
  }
}

// The local class of an instance-valued name (`model` in `model = Model()`), or none.
ClassId AnalysisImpl::class_of_binding(const ast::expr* e, ScopeId scope) const {
  const auto* name = as<ast::Name>(e);
  if (name == nullptr) return ClassId();
  const Binding* b = lookup(scope, name->id);
  if (b == nullptr || b->conflicting || b->kind != BindKind::Instance) return ClassId();
  return b->class_index;
}

void AnalysisImpl::build_call_graph() {
  for (size_t i = 0; i < functions_.size(); ++i) {
    FunctionInfo& f = functions_[i];
    ScopeId scope = ScopeId::for_function(static_cast<int>(i));
    ClassId klass = function_class_[i];
    std::string_view self =
        klass.has_value() && !is_staticmethod(f.node) ? first_param(f.node) : std::string_view{};
    auto add = [&](const ast::Node* callee) {
      if (callee == nullptr || !function_index_.count(callee)) return;
      if (std::find(f.callees.begin(), f.callees.end(), callee) == f.callees.end()) {
        f.callees.push_back(callee);
      }
    };
    for (const CallSite& site : calls_by_function_[scope.index]) {
      const ast::expr* func = site.call->func;
      if (const auto* name = as<ast::Name>(func)) {
        const Binding* b = lookup(scope, name->id);
        if (b == nullptr || b->conflicting) continue;
        if (b->kind == BindKind::Function) add(b->definition);
        if (b->kind == BindKind::Instance) add(module_forward(b->class_index));
        // building an object of a local class runs its __init__ (a base's, inherited)
        if (b->kind == BindKind::Class) add(find_method(b->class_index, "__init__"));
        continue;
      }
      const auto* attr = as<ast::Attribute>(func);
      if (attr == nullptr) continue;
      if (const auto* recv = as<ast::Name>(attr->value)) {
        if (klass.has_value() && !self.empty() && recv->id == self) {
          const ClassInfo& k = classes_[klass.index];
          if (const ast::Node* m = find_method(klass, attr->attr)) {
            add(m);
          } else if (auto it = k.attr_classes.find(attr->attr); it != k.attr_classes.end()) {
            add(module_forward(it->second));
          }
          continue;
        }
        const Binding* b = lookup(scope, recv->id);
        if (b == nullptr || b->conflicting) continue;
        if (b->kind == BindKind::Class || b->kind == BindKind::Instance) {
          add(find_method(b->class_index, attr->attr));
        }
        continue;
      }
      // self.<attr>.<method>(...): a method of the local class <attr> was set to
      if (const auto* owner = as<ast::Attribute>(attr->value); owner && klass.has_value()) {
        const auto* recv = as<ast::Name>(owner->value);
        const ClassInfo& k = classes_[klass.index];
        auto it = recv && !self.empty() && recv->id == self ? k.attr_classes.find(owner->attr)
                                                            : k.attr_classes.end();
        if (it != k.attr_classes.end()) add(find_method(it->second, attr->attr));
        continue;
      }
      if (const auto* inner = as<ast::Call>(attr->value); inner && klass.has_value()) {
        if (const auto* sup = as<ast::Name>(inner->func); sup && sup->id == "super") {
          for (ClassId base : classes_[klass.index].local_bases) {
            add(find_method(base, attr->attr));
          }
        }
      }
    }
  }
  std::vector<int> queue;
  for (size_t i = 0; i < functions_.size(); ++i) {
    if (functions_[i].reason != EntryReason::None) queue.push_back(static_cast<int>(i));
  }
  while (!queue.empty()) {
    int i = queue.back();
    queue.pop_back();
    for (const ast::Node* callee : functions_[i].callees) {
      int j = function_index_.at(callee);
      if (functions_[j].reason == EntryReason::None) {
        functions_[j].reason = EntryReason::Reached;
        queue.push_back(j);
      }
    }
  }
}

}  // namespace graphmend::sema
