// The analysis of one module: construction (scope walk, classes, entry points, call graph)
// and the basic queries over scopes and bindings. Each analysis has its own file: scopes.cpp,
// entries.cpp, calls.cpp, tensor_kind.cpp, purity.cpp, statements.cpp and flow.cpp.
#include <algorithm>

#include "sema/analysis_impl.h"
#include "sema/helpers.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

AnalysisImpl::AnalysisImpl(const ast::Module& module, const SourceText& source,
                           const AnalysisOptions& options)
    : module_(module), source_(source), options_(options) {
  build_scopes(*this, module);
  finalize();
}

std::unique_ptr<Analysis> Analysis::run(const ast::Module& module, const SourceText& source,
                                        const AnalysisOptions& options) {
  return std::make_unique<AnalysisImpl>(module, source, options);
}

void AnalysisImpl::finalize() {
  function_order_.resize(functions_.size());
  for (uint32_t i = 0; i < functions_.size(); ++i) function_order_[i] = i;
  std::stable_sort(function_order_.begin(), function_order_.end(), [&](uint32_t x, uint32_t y) {
    return functions_[x].node->begin < functions_[y].node->begin;
  });
  flows_.resize(scopes_.size());
  classify_values();
  for (const auto& [name, b] : scopes_[0].bindings) {
    if (b.kind == BindKind::Import && !b.conflicting && b.path == "torch") {
      if (torch_name_.empty() || name < torch_name_) torch_name_ = std::string(name);
    }
  }
  resolve_classes();
  for (size_t i = 0; i < functions_.size(); ++i) {
    FunctionInfo& f = functions_[i];
    ClassId k = function_class_[i];
    std::string name(function_name(f.node));
    if (k.has_value()) {
      f.owner_class = classes_[k.index].node;
      f.in_module_subclass = classes_[k.index].is_module;
      f.stores_optimizer_state =
          classes_[k.index].is_optimizer && stores_attribute_on(*f.node, first_param(f.node));
      name = std::string(classes_[k.index].node->name) + "." + name;
    } else if (function_parent_[i] >= 0) {
      name = functions_[function_parent_[i]].qualified_name + ".<locals>." + name;
    }
    f.qualified_name = std::move(name);
  }
  find_entries();
  build_call_graph();
}

void AnalysisImpl::classify_values() {
  for (size_t i = 0; i < scopes_.size(); ++i) {
    ScopeId s(static_cast<int32_t>(i));
    for (auto& [name, b] : scopes_[i].bindings) {
      if (b.values.empty() || b.conflicting) continue;
      if (b.kind == BindKind::Import || b.kind == BindKind::Function || b.kind == BindKind::Class) {
        for (const ast::expr* v : b.values) {
          if (!is_none_constant(v)) b.conflicting = true;
        }
        continue;
      }
      if (b.kind != BindKind::Value) continue;
      BindKind kind = BindKind::Other;
      ClassId klass;
      bool first = true;
      for (const ast::expr* v : b.values) {
        if (is_none_constant(v)) continue;
        BindKind k = BindKind::Other;
        ClassId c;
        if (v != nullptr && is_logger_expr(v, s)) {
          k = BindKind::Logger;
        } else if (v != nullptr && (c = constructor_class(v, s)).has_value()) {
          k = BindKind::Instance;
        }
        if (first) {
          kind = k, klass = c, first = false;
        } else if (k != kind || c != klass) {
          kind = BindKind::Other;
        }
      }
      b.kind = kind;
      b.class_index = kind == BindKind::Instance ? klass : ClassId();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Basic queries

const FunctionInfo* AnalysisImpl::function_of(const ast::Node* node) const {
  if (node == nullptr || functions_.empty()) return nullptr;
  auto own = function_index_.find(node);
  if (own != function_index_.end()) {
    int parent = function_parent_[own->second];
    return parent >= 0 ? &functions_[parent] : nullptr;
  }
  auto it = std::upper_bound(
      function_order_.begin(), function_order_.end(), node->begin,
      [&](uint32_t offset, uint32_t index) { return offset < functions_[index].node->begin; });
  if (it == function_order_.begin()) return nullptr;
  int f = static_cast<int>(*(it - 1));
  while (f >= 0) {
    const ast::Node* fn = functions_[f].node;
    if (fn->begin <= node->begin && node->end <= fn->end) return &functions_[f];
    f = function_parent_[f];
  }
  return nullptr;
}

bool AnalysisImpl::is_traced(const FunctionInfo& function) const {
  return function.reason != EntryReason::None;
}

ScopeId AnalysisImpl::scope_of(const ast::Node* node) const {
  const FunctionInfo* f = function_of(node);
  if (f == nullptr) return kModuleScope;
  return ScopeId::for_function(static_cast<int>(f - functions_.data()));
}

const Binding* AnalysisImpl::lookup(ScopeId scope, std::string_view name) const {
  ScopeId s = scope;
  for (int guard = 0; s.has_value() && guard < 256; ++guard) {
    const Scope& sc = scopes_[s.index];
    if (!s.is_module() && sc.globals.count(name)) {
      s = kModuleScope;
      continue;
    }
    if (s.is_module() || !sc.nonlocals.count(name)) {
      auto it = sc.bindings.find(name);
      if (it != sc.bindings.end()) return &it->second;
    }
    s = sc.parent;
  }
  return nullptr;
}

std::string AnalysisImpl::qualify(const ast::expr* e, ScopeId scope) const {
  std::string_view parts[32];
  int count = 0;
  while (const auto* attr = as<ast::Attribute>(e)) {
    if (count == 32) return {};
    parts[count++] = attr->attr;
    e = attr->value;
  }
  const auto* name = as<ast::Name>(e);
  if (name == nullptr) return {};
  const Binding* b = lookup(scope, name->id);
  if (b == nullptr || b->conflicting || b->kind != BindKind::Import) return {};
  std::string out = b->path;
  while (count > 0) {
    out += '.';
    out += parts[--count];
  }
  return out;
}

bool AnalysisImpl::is_builtin_print(const ast::Name& name) const {
  return name.id == "print" && lookup(scope_of(&name), "print") == nullptr;
}

std::string quote_source(const SourceText& source, const ast::Node& node, size_t limit) {
  std::string_view text = source.text();
  if (node.begin > node.end || node.end > text.size()) return {};
  std::string out;
  bool space = false;
  for (uint32_t i = node.begin; i < node.end; ++i) {
    char c = text[i];
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
    if (out.size() >= limit) {
      // do not cut a UTF-8 sequence in half
      while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80)
        out.pop_back();
      if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80)) out.pop_back();
      out += "...";
      break;
    }
  }
  return out;
}

}  // namespace graphmend::sema
