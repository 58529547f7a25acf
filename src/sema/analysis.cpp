// Scopes, imports, classes, entry points, call graph, tensor-ness and purity.
// Flow facts (CFG, reaching definitions, liveness) live in flow.cpp.
#include <algorithm>
#include <cstring>

#include "sema/analysis_impl.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

namespace {

constexpr int kMaxDepth = 400;  // expression recursion limit; deeper trees get "unknown"
constexpr int kMaxWalkDepth = 1500;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

bool in_list(std::string_view name, const std::unordered_set<std::string_view>& set) {
  return set.count(name) != 0;
}

bool in_list(std::string_view name, std::initializer_list<std::string_view> list) {
  for (std::string_view item : list) {
    if (item == name) return true;
  }
  return false;
}

bool is_none_constant(const ast::expr* e) {
  const auto* c = as<ast::Constant>(e);
  return c != nullptr && c->value.type == ast::ConstantValue::Type::None;
}

ast::Node* mut(const ast::Node* n) { return const_cast<ast::Node*>(n); }

// The first positional parameter of a function (self / cls), or empty.
std::string_view first_param(const ast::Node* fn) {
  const ast::arguments* args = nullptr;
  if (const auto* f = as<ast::FunctionDef>(fn)) args = f->args;
  if (const auto* f = as<ast::AsyncFunctionDef>(fn)) args = f->args;
  if (args == nullptr) return {};
  if (!args->posonlyargs.empty()) return args->posonlyargs[0]->arg;
  if (!args->args.empty()) return args->args[0]->arg;
  return {};
}

const ast::Seq<ast::expr*>* decorators_of(const ast::Node* fn) {
  if (const auto* f = as<ast::FunctionDef>(fn)) return &f->decorator_list;
  if (const auto* f = as<ast::AsyncFunctionDef>(fn)) return &f->decorator_list;
  return nullptr;
}

bool is_staticmethod(const ast::Node* fn) {
  const auto* decorators = decorators_of(fn);
  if (decorators == nullptr) return false;
  for (const ast::expr* d : *decorators) {
    if (const auto* n = as<ast::Name>(d); n && n->id == "staticmethod") return true;
  }
  return false;
}

std::string_view function_name(const ast::Node* fn) {
  if (const auto* f = as<ast::FunctionDef>(fn)) return f->name;
  if (const auto* f = as<ast::AsyncFunctionDef>(fn)) return f->name;
  return {};
}

const ast::keyword* find_keyword(const ast::Call& call, std::string_view name) {
  for (const ast::keyword* k : call.keywords) {
    if (k->arg == name) return k;
  }
  return nullptr;
}

ValueKind join_kind(ValueKind a, ValueKind b) {
  if (a == b) return a;
  if (is_tensor_kind(a) && is_tensor_kind(b)) return ValueKind::Tensor;
  if (is_data_kind(a) && is_data_kind(b)) return ValueKind::DataScalar;
  return ValueKind::Other;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The scope walk: one pre-order pass over the module that records functions, classes,
// bindings per scope and every call site.

class ScopeWalker {
 public:
  explicit ScopeWalker(AnalysisImpl& a) : a_(a) {}

  void run(const ast::Module& module) {
    Scope top;
    top.node = &module;
    a_.scopes_.push_back(std::move(top));
    a_.calls_by_function_.emplace_back();
    Ctx ctx;
    for (const ast::stmt* s : module.body) walk(s, ctx, 0);
  }

 private:
  struct Ctx {
    int scope = 0;          // function scope (0: module)
    int klass = -1;         // class whose body we are directly in
    int method_class = -1;  // class of the method whose body we are in
    std::string_view self_name;
  };

  Binding* binding_slot(const Ctx& c, std::string_view name) {
    if (c.klass >= 0) return nullptr;  // class attributes are not variables of any function
    int s = c.scope;
    Scope& scope = a_.scopes_[s];
    if (s != 0 && scope.globals.count(name)) {
      s = 0;
    } else if (s != 0 && scope.nonlocals.count(name)) {
      s = scope.parent;
      while (s > 0 && !a_.scopes_[s].bindings.count(name)) s = a_.scopes_[s].parent;
      if (s <= 0) return nullptr;
    }
    auto [it, inserted] = a_.scopes_[s].bindings.try_emplace(name);
    if (inserted) it->second.kind = BindKind::Value, it->second.conflicting = false;
    fresh_ = inserted;
    return &it->second;
  }

  void bind(const Ctx& c, std::string_view name, BindKind kind, const ast::expr* value = nullptr,
            std::string path = {}, const ast::Node* definition = nullptr, int class_index = -1) {
    if (name.empty()) return;
    Binding* b = binding_slot(c, name);
    if (b == nullptr) return;
    if (kind == BindKind::Value) {
      b->values.push_back(value);
      return;
    }
    if (fresh_ || (b->kind == BindKind::Value && b->definition == nullptr && b->path.empty() &&
                   b->class_index < 0 && !b->conflicting && b->values.empty())) {
      b->kind = kind;
      b->path = std::move(path);
      b->definition = definition;
      b->class_index = class_index;
      return;
    }
    if (b->kind == kind && (kind != BindKind::Import || b->path == path)) {
      if (definition != nullptr) b->definition = definition;
      if (class_index >= 0) b->class_index = class_index;
      return;
    }
    if (b->kind == BindKind::Value) {  // assigned first, then bound another way
      b->kind = kind;
      b->path = std::move(path);
      b->definition = definition;
      b->class_index = class_index;
      return;
    }
    b->conflicting = true;
  }

  void bind_target(const ast::expr* target, const ast::expr* value, const Ctx& c, int depth) {
    if (target == nullptr || depth > 64) return;
    switch (target->kind) {
      case ast::Kind::Name:
        bind(c, as<ast::Name>(target)->id, BindKind::Value, value);
        break;
      case ast::Kind::Tuple:
        for (const ast::expr* e : as<ast::Tuple>(target)->elts)
          bind_target(e, nullptr, c, depth + 1);
        break;
      case ast::Kind::List:
        for (const ast::expr* e : as<ast::List>(target)->elts)
          bind_target(e, nullptr, c, depth + 1);
        break;
      case ast::Kind::Starred:
        bind_target(as<ast::Starred>(target)->value, nullptr, c, depth + 1);
        break;
      case ast::Kind::Attribute: {
        const auto* attr = as<ast::Attribute>(target);
        const auto* base = as<ast::Name>(attr->value);
        if (base && c.method_class >= 0 && !c.self_name.empty() && base->id == c.self_name &&
            value != nullptr) {
          a_.classes_[c.method_class].pending_attrs.push_back({attr->attr, value});
        }
        walk(attr->value, c, depth + 1);
        break;
      }
      default:
        walk(target, c, depth + 1);  // subscripts: their parts are expressions
        break;
    }
  }

  void bind_pattern(const ast::Node* p, const Ctx& c, int depth) {
    if (p == nullptr || depth > kMaxWalkDepth) return;
    if (const auto* m = as<ast::MatchAs>(p)) bind(c, m->name, BindKind::Other);
    if (const auto* m = as<ast::MatchStar>(p)) bind(c, m->name, BindKind::Other);
    if (const auto* m = as<ast::MatchMapping>(p)) bind(c, m->rest, BindKind::Other);
    ast::for_each_child(mut(p), [&](ast::Node* child) {
      if (ast::is<ast::MatchValue>(child) || child->kind == ast::Kind::MatchClass) {
        walk(child, c, depth + 1);
      }
      bind_pattern(child, c, depth + 1);
    });
  }

  void walk_function(const ast::Node* node, const ast::arguments* args,
                     const ast::Seq<ast::stmt*>& body, const ast::Seq<ast::expr*>& decorators,
                     const ast::expr* returns, std::string_view name, const Ctx& c, int depth) {
    for (const ast::expr* d : decorators) walk(d, c, depth + 1);
    walk_arguments_outer(args, c, depth);
    if (returns) walk(returns, c, depth + 1);

    int index = static_cast<int>(a_.functions_.size());
    FunctionInfo info;
    info.node = node;
    a_.functions_.push_back(std::move(info));
    a_.function_index_[node] = index;
    a_.function_parent_.push_back(c.scope > 0 ? c.scope - 1 : -1);
    a_.function_class_.push_back(c.klass);
    if (c.klass >= 0) {
      a_.classes_[c.klass].methods[name] = node;
    } else {
      bind(c, name, BindKind::Function, nullptr, {}, node);
    }

    Scope scope;
    scope.node = node;
    scope.parent = c.scope;
    int s = static_cast<int>(a_.scopes_.size());
    a_.scopes_.push_back(std::move(scope));
    a_.calls_by_function_.emplace_back();

    Ctx inner;
    inner.scope = s;
    if (c.klass >= 0 && !is_staticmethod(node)) {
      inner.method_class = c.klass;
      inner.self_name = first_param(node);
    }
    auto bind_arg = [&](const ast::arg* a) {
      if (a) bind(inner, a->arg, BindKind::Param);
    };
    for (const ast::arg* a : args->posonlyargs) bind_arg(a);
    for (const ast::arg* a : args->args) bind_arg(a);
    bind_arg(args->vararg);
    for (const ast::arg* a : args->kwonlyargs) bind_arg(a);
    bind_arg(args->kwarg);
    // global/nonlocal declarations first, so that later bindings are routed correctly
    for (const ast::stmt* st : body) declare(st, inner, 0);
    for (const ast::stmt* st : body) walk(st, inner, depth + 1);
  }

  // Records global/nonlocal declarations anywhere in a function body (not nested scopes).
  void declare(const ast::Node* n, const Ctx& c, int depth) {
    if (n == nullptr || depth > 200) return;
    if (const auto* g = as<ast::Global>(n)) {
      for (std::string_view name : g->names) a_.scopes_[c.scope].globals.insert(name);
      return;
    }
    if (const auto* g = as<ast::Nonlocal>(n)) {
      for (std::string_view name : g->names) a_.scopes_[c.scope].nonlocals.insert(name);
      return;
    }
    switch (n->kind) {
      case ast::Kind::If:
      case ast::Kind::For:
      case ast::Kind::AsyncFor:
      case ast::Kind::While:
      case ast::Kind::With:
      case ast::Kind::AsyncWith:
      case ast::Kind::Try:
      case ast::Kind::TryStar:
      case ast::Kind::Match:
      case ast::Kind::ExceptHandler:
      case ast::Kind::match_case:
        ast::for_each_child(mut(n), [&](ast::Node* child) {
          if (child->kind >= ast::Kind::FunctionDef && child->kind <= ast::Kind::Continue) {
            declare(child, c, depth + 1);
          } else if (child->kind == ast::Kind::ExceptHandler ||
                     child->kind == ast::Kind::match_case) {
            declare(child, c, depth + 1);
          }
        });
        break;
      default:
        break;
    }
  }

  void walk_arguments_outer(const ast::arguments* args, const Ctx& c, int depth) {
    if (args == nullptr) return;
    for (const ast::expr* d : args->defaults) walk(d, c, depth + 1);
    for (const ast::expr* d : args->kw_defaults) {
      if (d) walk(d, c, depth + 1);
    }
    auto ann = [&](const ast::arg* a) {
      if (a && a->annotation) walk(a->annotation, c, depth + 1);
    };
    for (const ast::arg* a : args->posonlyargs) ann(a);
    for (const ast::arg* a : args->args) ann(a);
    ann(args->vararg);
    for (const ast::arg* a : args->kwonlyargs) ann(a);
    ann(args->kwarg);
  }

  void walk(const ast::Node* n, const Ctx& c, int depth) {
    if (n == nullptr || depth > kMaxWalkDepth) return;
    switch (n->kind) {
      case ast::Kind::FunctionDef: {
        const auto* f = as<ast::FunctionDef>(n);
        walk_function(f, f->args, f->body, f->decorator_list, f->returns, f->name, c, depth);
        return;
      }
      case ast::Kind::AsyncFunctionDef: {
        const auto* f = as<ast::AsyncFunctionDef>(n);
        walk_function(f, f->args, f->body, f->decorator_list, f->returns, f->name, c, depth);
        return;
      }
      case ast::Kind::ClassDef: {
        const auto* k = as<ast::ClassDef>(n);
        for (const ast::expr* e : k->bases) walk(e, c, depth + 1);
        for (const ast::keyword* e : k->keywords) walk(e, c, depth + 1);
        for (const ast::expr* e : k->decorator_list) walk(e, c, depth + 1);
        int index = static_cast<int>(a_.classes_.size());
        ClassInfo info;
        info.node = k;
        info.scope = c.scope;
        a_.classes_.push_back(std::move(info));
        a_.class_index_[k] = index;
        bind(c, k->name, BindKind::Class, nullptr, {}, k, index);
        Ctx inner = c;
        inner.klass = index;
        inner.method_class = -1;
        inner.self_name = {};
        for (const ast::stmt* st : k->body) walk(st, inner, depth + 1);
        return;
      }
      case ast::Kind::Assign: {
        const auto* s = as<ast::Assign>(n);
        walk(s->value, c, depth + 1);
        for (const ast::expr* t : s->targets) bind_target(t, s->value, c, depth + 1);
        return;
      }
      case ast::Kind::AugAssign: {
        const auto* s = as<ast::AugAssign>(n);
        walk(s->value, c, depth + 1);
        if (const auto* name = as<ast::Name>(s->target)) {
          bind(c, name->id, BindKind::Value, nullptr);
        } else {
          walk(s->target, c, depth + 1);
        }
        return;
      }
      case ast::Kind::AnnAssign: {
        const auto* s = as<ast::AnnAssign>(n);
        if (s->value) walk(s->value, c, depth + 1);
        walk(s->annotation, c, depth + 1);
        bind_target(s->target, s->value, c, depth + 1);
        return;
      }
      case ast::Kind::For:
      case ast::Kind::AsyncFor: {
        const ast::expr* target = nullptr;
        if (const auto* s = as<ast::For>(n)) target = s->target;
        if (const auto* s = as<ast::AsyncFor>(n)) target = s->target;
        bind_target(target, nullptr, c, depth + 1);
        ast::for_each_child(mut(n), [&](ast::Node* child) {
          if (child != target) walk(child, c, depth + 1);
        });
        return;
      }
      case ast::Kind::withitem: {
        const auto* w = as<ast::withitem>(n);
        walk(w->context_expr, c, depth + 1);
        if (w->optional_vars) bind_target(w->optional_vars, nullptr, c, depth + 1);
        return;
      }
      case ast::Kind::Import: {
        for (const ast::alias* al : as<ast::Import>(n)->names) {
          if (!al->asname.empty()) {
            bind(c, al->asname, BindKind::Import, nullptr, std::string(al->name));
          } else {
            std::string_view first = al->name.substr(0, al->name.find('.'));
            bind(c, first, BindKind::Import, nullptr, std::string(first));
          }
        }
        return;
      }
      case ast::Kind::ImportFrom: {
        const auto* s = as<ast::ImportFrom>(n);
        std::string base(static_cast<size_t>(std::max(0, std::min(s->level, 64))), '.');
        base += s->module;
        for (const ast::alias* al : s->names) {
          if (al->name == "*") continue;
          std::string path = base;
          if (!path.empty() && path.back() != '.') path += '.';
          path += al->name;
          bind(c, al->asname.empty() ? al->name : al->asname, BindKind::Import, nullptr, path);
        }
        return;
      }
      case ast::Kind::ExceptHandler: {
        const auto* h = as<ast::ExceptHandler>(n);
        if (!h->name.empty()) bind(c, h->name, BindKind::Other);
        break;  // children below
      }
      case ast::Kind::match_case: {
        const auto* m = as<ast::match_case>(n);
        bind_pattern(m->pattern, c, depth + 1);
        if (m->guard) walk(m->guard, c, depth + 1);
        for (const ast::stmt* st : m->body) walk(st, c, depth + 1);
        return;
      }
      case ast::Kind::NamedExpr: {
        const auto* w = as<ast::NamedExpr>(n);
        walk(w->value, c, depth + 1);
        if (const auto* name = as<ast::Name>(w->target)) {
          bind(c, name->id, BindKind::Value, w->value);
        }
        return;
      }
      case ast::Kind::Call: {
        CallSite site{as<ast::Call>(n), c.scope};
        a_.all_calls_.push_back(site);
        a_.calls_by_function_[c.scope].push_back(site);
        break;
      }
      case ast::Kind::Global:
      case ast::Kind::Nonlocal:
        return;  // recorded by declare()
      default:
        break;
    }
    ast::for_each_child(mut(n), [&](ast::Node* child) { walk(child, c, depth + 1); });
  }

  AnalysisImpl& a_;
  bool fresh_ = false;
};

// ---------------------------------------------------------------------------------------------

AnalysisImpl::AnalysisImpl(const ast::Module& module, const SourceText& source,
                           const AnalysisOptions& options)
    : module_(module), source_(source), options_(options) {
  ScopeWalker(*this).run(module);
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
    int k = function_class_[i];
    std::string name(function_name(f.node));
    if (k >= 0) {
      f.owner_class = classes_[k].node;
      f.in_module_subclass = classes_[k].is_module;
      name = std::string(classes_[k].node->name) + "." + name;
    } else if (function_parent_[i] >= 0) {
      name = functions_[function_parent_[i]].qualified_name + ".<locals>." + name;
    }
    f.qualified_name = std::move(name);
  }
  find_entries();
  build_call_graph();
}

void AnalysisImpl::classify_values() {
  for (size_t s = 0; s < scopes_.size(); ++s) {
    for (auto& [name, b] : scopes_[s].bindings) {
      if (b.values.empty() || b.conflicting) continue;
      if (b.kind == BindKind::Import || b.kind == BindKind::Function || b.kind == BindKind::Class) {
        for (const ast::expr* v : b.values) {
          if (!is_none_constant(v)) b.conflicting = true;
        }
        continue;
      }
      if (b.kind != BindKind::Value) continue;
      BindKind kind = BindKind::Other;
      int klass = -1;
      bool first = true;
      for (const ast::expr* v : b.values) {
        if (is_none_constant(v)) continue;
        BindKind k = BindKind::Other;
        int c = -1;
        if (v != nullptr && is_logger_expr(v, static_cast<int>(s))) {
          k = BindKind::Logger;
        } else if (v != nullptr && (c = constructor_class(v, static_cast<int>(s))) >= 0) {
          k = BindKind::Instance;
        }
        if (first) {
          kind = k, klass = c, first = false;
        } else if (k != kind || c != klass) {
          kind = BindKind::Other;
        }
      }
      b.kind = kind;
      b.class_index = kind == BindKind::Instance ? klass : -1;
    }
  }
}

int AnalysisImpl::constructor_class(const ast::expr* e, int scope) const {
  for (int guard = 0; e != nullptr && guard < 16; ++guard) {
    const auto* call = as<ast::Call>(e);
    if (call == nullptr) return -1;
    if (const auto* name = as<ast::Name>(call->func)) {
      const Binding* b = lookup(scope, name->id);
      if (b && !b->conflicting && b->kind == BindKind::Class) return b->class_index;
      return -1;
    }
    // Model(...).to(device) / .eval() / .cuda(): the receiver's class
    const auto* attr = as<ast::Attribute>(call->func);
    if (attr == nullptr ||
        !in_list(attr->attr, {"to", "eval", "train", "cuda", "cpu", "half", "float", "bfloat16",
                              "double", "requires_grad_"})) {
      return -1;
    }
    e = attr->value;
  }
  return -1;
}

const ast::Node* AnalysisImpl::find_method(int class_index, std::string_view name,
                                           int depth) const {
  if (class_index < 0 || depth > 32) return nullptr;
  const ClassInfo& k = classes_[class_index];
  auto it = k.methods.find(name);
  if (it != k.methods.end()) return it->second;
  for (int base : k.local_bases) {
    if (const ast::Node* m = find_method(base, name, depth + 1)) return m;
  }
  return nullptr;
}

const ast::Node* AnalysisImpl::module_forward(int class_index) const {
  if (class_index < 0 || !classes_[class_index].is_module) return nullptr;
  return find_method(class_index, "forward");
}

void AnalysisImpl::resolve_classes() {
  for (ClassInfo& k : classes_) {
    for (const ast::expr* base : k.node->bases) {
      if (const auto* name = as<ast::Name>(base)) {
        const Binding* b = lookup(k.scope, name->id);
        if (b && !b->conflicting && b->kind == BindKind::Class && b->class_index >= 0 &&
            classes_[b->class_index].node != k.node) {
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
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (ClassInfo& k : classes_) {
      if (k.is_module) continue;
      bool m = k.torch_module_base;
      for (int base : k.local_bases) m = m || classes_[base].is_module;
      if (m) k.is_module = changed = true;
    }
  }
  for (ClassInfo& k : classes_) {
    for (const auto& [attr, value] : k.pending_attrs) {
      int c = constructor_class(value, k.scope);
      if (c >= 0) k.attr_classes[attr] = c;
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
    case EntryReason::Library:
      return 5;
    case EntryReason::Reached:
      return 6;
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
    int outer = function_parent_[i] + 1;
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
        int c = class_of_binding(attr->value, site.scope);
        if (c >= 0) mark(find_method(c, attr->attr), EntryReason::CompileCall);
      }
      continue;
    }
    if (const auto* attr = as<ast::Attribute>(call.func);
        attr && attr->attr == "compile" && call.args.empty()) {
      int c = class_of_binding(attr->value, site.scope);
      if (c >= 0) mark(module_forward(c), EntryReason::CompileMethod);
    }
  }
  for (const ClassInfo& k : classes_) {
    if (!k.is_module) continue;
    auto it = k.methods.find("forward");
    if (it != k.methods.end()) mark(it->second, EntryReason::ModuleForward);
  }
  if (options_.trace_all) {
    for (const FunctionInfo& f : functions_) mark(f.node, EntryReason::Library);
  }
}

// The local class of an instance-valued name (`model` in `model = Model()`), or -1.
int AnalysisImpl::class_of_binding(const ast::expr* e, int scope) const {
  const auto* name = as<ast::Name>(e);
  if (name == nullptr) return -1;
  const Binding* b = lookup(scope, name->id);
  if (b == nullptr || b->conflicting || b->kind != BindKind::Instance) return -1;
  return b->class_index;
}

void AnalysisImpl::build_call_graph() {
  for (size_t i = 0; i < functions_.size(); ++i) {
    FunctionInfo& f = functions_[i];
    int scope = static_cast<int>(i) + 1;
    int klass = function_class_[i];
    std::string_view self =
        klass >= 0 && !is_staticmethod(f.node) ? first_param(f.node) : std::string_view{};
    auto add = [&](const ast::Node* callee) {
      if (callee == nullptr || !function_index_.count(callee)) return;
      if (std::find(f.callees.begin(), f.callees.end(), callee) == f.callees.end()) {
        f.callees.push_back(callee);
      }
    };
    for (const CallSite& site : calls_by_function_[scope]) {
      const ast::expr* func = site.call->func;
      if (const auto* name = as<ast::Name>(func)) {
        const Binding* b = lookup(scope, name->id);
        if (b == nullptr || b->conflicting) continue;
        if (b->kind == BindKind::Function) add(b->definition);
        if (b->kind == BindKind::Instance) add(module_forward(b->class_index));
        continue;
      }
      const auto* attr = as<ast::Attribute>(func);
      if (attr == nullptr) continue;
      if (const auto* recv = as<ast::Name>(attr->value)) {
        if (klass >= 0 && !self.empty() && recv->id == self) {
          if (const ast::Node* m = find_method(klass, attr->attr)) {
            add(m);
          } else {
            auto it = classes_[klass].attr_classes.find(attr->attr);
            if (it != classes_[klass].attr_classes.end()) add(module_forward(it->second));
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
      if (const auto* inner = as<ast::Call>(attr->value); inner && klass >= 0) {
        if (const auto* sup = as<ast::Name>(inner->func); sup && sup->id == "super") {
          for (int base : classes_[klass].local_bases) add(find_method(base, attr->attr));
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

int AnalysisImpl::scope_of(const ast::Node* node) const {
  const FunctionInfo* f = function_of(node);
  if (f == nullptr) return 0;
  return static_cast<int>(f - functions_.data()) + 1;
}

const Binding* AnalysisImpl::lookup(int scope, std::string_view name) const {
  int s = scope;
  for (int guard = 0; s >= 0 && guard < 256; ++guard) {
    const Scope& sc = scopes_[s];
    if (s != 0 && sc.globals.count(name)) {
      s = 0;
      continue;
    }
    if (s == 0 || !sc.nonlocals.count(name)) {
      auto it = sc.bindings.find(name);
      if (it != sc.bindings.end()) return &it->second;
    }
    s = sc.parent;
  }
  return nullptr;
}

std::string AnalysisImpl::qualify(const ast::expr* e, int scope) const {
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

bool AnalysisImpl::is_logger_expr(const ast::expr* e, int scope) const {
  if (const auto* name = as<ast::Name>(e)) {
    const Binding* b = lookup(scope, name->id);
    return b != nullptr && !b->conflicting && b->kind == BindKind::Logger;
  }
  if (const auto* call = as<ast::Call>(e)) {
    std::string q = qualify(call->func, scope);
    return ends_with(q, "logging.getLogger") || ends_with(q, "logging.get_logger");
  }
  return false;
}

namespace {
const std::unordered_set<std::string_view> kLoggerMethods = {
    "debug",     "info", "warning", "warn",         "error",     "critical",
    "exception", "log",  "fatal",   "warning_once", "info_once", "warning_advice"};

const std::unordered_set<std::string_view> kBuiltins = {
    "abs",          "all",        "any",    "ascii",     "bin",     "bool",       "bytearray",
    "bytes",        "callable",   "chr",    "dict",      "dir",     "divmod",     "enumerate",
    "filter",       "float",      "format", "frozenset", "getattr", "globals",    "hasattr",
    "hash",         "hex",        "id",     "input",     "int",     "isinstance", "issubclass",
    "iter",         "len",        "list",   "locals",    "map",     "max",        "min",
    "next",         "object",     "oct",    "open",      "ord",     "pow",        "range",
    "repr",         "reversed",   "round",  "set",       "setattr", "slice",      "sorted",
    "str",          "sum",        "super",  "tuple",     "type",    "vars",       "zip",
    "delattr",      "exec",       "eval",   "compile",   "complex", "memoryview", "property",
    "staticmethod", "classmethod"};
}  // namespace

int AnalysisImpl::self_class_of_scope(int scope, std::string_view receiver) const {
  if (scope <= 0) return -1;
  int f = scope - 1;
  int klass = function_class_[f];
  if (klass < 0 || is_staticmethod(functions_[f].node)) return -1;
  if (first_param(functions_[f].node) != receiver) return -1;
  return klass;
}

Callee AnalysisImpl::resolve_call(const ast::Call& call) const {
  Callee out;
  int scope = scope_of(&call);
  const ast::expr* func = call.func;
  if (const auto* name = as<ast::Name>(func)) {
    const Binding* b = lookup(scope, name->id);
    out.qualified_name = std::string(name->id);
    if (b == nullptr) {
      if (name->id == "print") {
        out.kind = CalleeKind::Print;
      } else if (in_list(name->id, kBuiltins)) {
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
    } else if (starts_with(q, "logging.") && in_list(q.substr(8), kLoggerMethods)) {
      out.kind = CalleeKind::LoggerMethod;
    }
    return out;
  }
  const auto* attr = as<ast::Attribute>(func);
  if (attr == nullptr) return out;
  out.qualified_name = std::string(attr->attr);
  if (in_list(attr->attr, kLoggerMethods) && is_logger_expr(attr->value, scope)) {
    out.kind = CalleeKind::LoggerMethod;
    out.qualified_name = "logging.Logger." + std::string(attr->attr);
    return out;
  }
  if (const auto* recv = as<ast::Name>(attr->value)) {
    int klass = self_class_of_scope(scope, recv->id);
    if (klass >= 0) {
      if (const ast::Node* m = find_method(klass, attr->attr)) {
        out.kind = CalleeKind::LocalFunction;
        out.definition = m;
        out.qualified_name = std::string(classes_[klass].node->name) + "." + out.qualified_name;
        return out;
      }
      if (classes_[klass].is_module) {
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

// ---------------------------------------------------------------------------------------------
// Tensor-ness

namespace {

const std::unordered_set<std::string_view> kBoolOps = {"eq",         "ne",          "lt",
                                                       "le",         "gt",          "ge",
                                                       "greater",    "less",        "greater_equal",
                                                       "less_equal", "not_equal",   "isnan",
                                                       "isinf",      "isfinite",    "isneginf",
                                                       "isposinf",   "isreal",      "logical_and",
                                                       "logical_or", "logical_not", "logical_xor",
                                                       "any",        "all",         "isin",
                                                       "isclose",    "signbit",     "bool"};

const std::unordered_set<std::string_view> kTupleOps = {"chunk",
                                                        "split",
                                                        "unbind",
                                                        "tensor_split",
                                                        "sort",
                                                        "topk",
                                                        "kthvalue",
                                                        "aminmax",
                                                        "meshgrid",
                                                        "broadcast_tensors",
                                                        "split_with_sizes",
                                                        "hsplit",
                                                        "vsplit",
                                                        "dsplit",
                                                        "std_mean",
                                                        "var_mean",
                                                        "frexp",
                                                        "cummax",
                                                        "cummin",
                                                        "mode",
                                                        "qr",
                                                        "svd",
                                                        "slogdet",
                                                        "lu",
                                                        "eig",
                                                        "eigh",
                                                        "geqrf"};

const std::unordered_set<std::string_view> kReductions = {
    "sum",    "max",       "min",    "mean",    "prod",          "any",    "all",
    "argmax", "argmin",    "amax",   "amin",    "norm",          "std",    "var",
    "median", "logsumexp", "nansum", "nanmean", "count_nonzero", "nonzero"};

const std::unordered_set<std::string_view> kNonTensorMethods = {"size",           "dim",
                                                                "ndimension",     "numel",
                                                                "nelement",       "element_size",
                                                                "data_ptr",       "stride",
                                                                "storage_offset", "get_device",
                                                                "numpy",          "backward",
                                                                "register_hook",  "untyped_storage",
                                                                "storage",        "dim_order",
                                                                "__len__",        "tolist",
                                                                "item",           "equal",
                                                                "allclose",       "type",
                                                                "keys",           "values",
                                                                "items",          "get",
                                                                "format",         "join",
                                                                "split_with",     "startswith",
                                                                "endswith",       "append",
                                                                "extend",         "copy"};

// Methods that keep a bool tensor bool.
const std::unordered_set<std::string_view> kShapeOps = {
    "view",    "reshape",  "unsqueeze",  "squeeze",      "expand", "expand_as",   "transpose",
    "permute", "flatten",  "contiguous", "clone",        "t",      "repeat",      "flip",
    "roll",    "narrow",   "select",     "index_select", "gather", "detach",      "cpu",
    "cuda",    "view_as",  "reshape_as", "tril",         "triu",   "masked_fill", "__getitem__",
    "movedim", "swapaxes", "unflatten",  "broadcast_to"};

}  // namespace

ValueKind AnalysisImpl::kind_of(const ast::expr& e) const { return kind_rec(&e, scope_of(&e), 0); }

bool AnalysisImpl::is_tensor(const ast::expr& e) const { return is_tensor_kind(kind_of(e)); }

bool AnalysisImpl::is_bool_tensor(const ast::expr& e) const {
  return kind_of(e) == ValueKind::BoolTensor;
}

bool AnalysisImpl::is_data_dependent(const ast::expr& condition) const {
  return is_data_kind(kind_of(condition));
}

ValueKind AnalysisImpl::kind_rec(const ast::expr* e, int scope, int depth) const {
  if (e == nullptr || depth > kMaxDepth) return ValueKind::Other;
  switch (e->kind) {
    case ast::Kind::Name:
      return kind_of_name(*as<ast::Name>(e), scope);
    case ast::Kind::NamedExpr:
      return kind_rec(as<ast::NamedExpr>(e)->value, scope, depth + 1);
    case ast::Kind::Attribute: {
      const auto* a = as<ast::Attribute>(e);
      ValueKind base = kind_rec(a->value, scope, depth + 1);
      if (is_tensor_kind(base)) {
        if (in_list(a->attr, {"T", "mT", "H", "mH", "data", "real", "imag", "grad"})) {
          return a->attr == "T" || a->attr == "mT" || a->attr == "data" ? base : ValueKind::Tensor;
        }
        return ValueKind::Other;
      }
      if (base == ValueKind::TensorTuple && in_list(a->attr, {"values", "indices"})) {
        return ValueKind::Tensor;
      }
      return ValueKind::Other;
    }
    case ast::Kind::Subscript: {
      const auto* s = as<ast::Subscript>(e);
      ValueKind base = kind_rec(s->value, scope, depth + 1);
      if (is_tensor_kind(base)) return base;
      if (base == ValueKind::TensorTuple) return ValueKind::Tensor;
      return ValueKind::Other;
    }
    case ast::Kind::Call:
      return call_kind(*as<ast::Call>(e), scope, depth);
    case ast::Kind::BinOp: {
      const auto* b = as<ast::BinOp>(e);
      ValueKind l = kind_rec(b->left, scope, depth + 1);
      ValueKind r = kind_rec(b->right, scope, depth + 1);
      if (is_tensor_kind(l) || is_tensor_kind(r)) {
        bool bitwise = b->op == ast::OperatorKind::BitAnd || b->op == ast::OperatorKind::BitOr ||
                       b->op == ast::OperatorKind::BitXor;
        if (bitwise && l == ValueKind::BoolTensor && r == ValueKind::BoolTensor) {
          return ValueKind::BoolTensor;
        }
        if (l == ValueKind::TensorTuple || r == ValueKind::TensorTuple) return ValueKind::Other;
        return ValueKind::Tensor;
      }
      if (l == ValueKind::DataScalar || r == ValueKind::DataScalar) return ValueKind::DataScalar;
      return ValueKind::Other;
    }
    case ast::Kind::UnaryOp: {
      const auto* u = as<ast::UnaryOp>(e);
      ValueKind k = kind_rec(u->operand, scope, depth + 1);
      if (u->op == ast::UnaryOpKind::Not) {
        return is_data_kind(k) ? ValueKind::DataScalar : ValueKind::Other;
      }
      if (k == ValueKind::BoolTensor && u->op != ast::UnaryOpKind::Invert) return ValueKind::Tensor;
      return k == ValueKind::TensorTuple ? ValueKind::Other : k;
    }
    case ast::Kind::Compare: {
      const auto* c = as<ast::Compare>(e);
      for (ast::CmpOpKind op : c->ops) {
        if (op == ast::CmpOpKind::Is || op == ast::CmpOpKind::IsNot || op == ast::CmpOpKind::In ||
            op == ast::CmpOpKind::NotIn) {
          return ValueKind::Other;
        }
      }
      bool tensor = false, data = false;
      ValueKind l = kind_rec(c->left, scope, depth + 1);
      tensor |= is_tensor_kind(l);
      data |= l == ValueKind::DataScalar;
      for (const ast::expr* r : c->comparators) {
        ValueKind k = kind_rec(r, scope, depth + 1);
        tensor |= is_tensor_kind(k);
        data |= k == ValueKind::DataScalar;
      }
      if (tensor) return c->ops.size == 1 ? ValueKind::BoolTensor : ValueKind::DataScalar;
      return data ? ValueKind::DataScalar : ValueKind::Other;
    }
    case ast::Kind::BoolOp: {
      const auto* b = as<ast::BoolOp>(e);
      bool all_tensor = true, all_bool = true, any_data = false;
      for (const ast::expr* v : b->values) {
        ValueKind k = kind_rec(v, scope, depth + 1);
        all_tensor &= is_tensor_kind(k);
        all_bool &= k == ValueKind::BoolTensor;
        any_data |= is_data_kind(k);
      }
      if (all_tensor) return all_bool ? ValueKind::BoolTensor : ValueKind::Tensor;
      return any_data ? ValueKind::DataScalar : ValueKind::Other;
    }
    case ast::Kind::IfExp: {
      const auto* i = as<ast::IfExp>(e);
      return join_kind(kind_rec(i->body, scope, depth + 1), kind_rec(i->orelse, scope, depth + 1));
    }
    case ast::Kind::Tuple: {
      const auto* t = as<ast::Tuple>(e);
      if (t->elts.empty()) return ValueKind::Other;
      for (const ast::expr* x : t->elts) {
        if (!is_tensor_kind(kind_rec(x, scope, depth + 1))) return ValueKind::Other;
      }
      return ValueKind::TensorTuple;
    }
    default:
      return ValueKind::Other;
  }
}

namespace {

ValueKind torch_function_kind(std::string_view name, const ast::Call& call, const AnalysisImpl& a,
                              int scope) {
  // name is the part after "torch."
  size_t dot = name.find('.');
  if (dot != std::string_view::npos) {
    std::string_view package = name.substr(0, dot);
    std::string_view rest = name.substr(dot + 1);
    if (package == "nn") {
      if (starts_with(rest, "functional.")) {
        std::string_view fn = rest.substr(11);
        if (fn.find('.') != std::string_view::npos) return ValueKind::Other;
        return ValueKind::Tensor;
      }
      return ValueKind::Other;
    }
    if (in_list(package, {"linalg", "fft", "special"})) return ValueKind::Tensor;
    return ValueKind::Other;
  }
  if (name.empty()) return ValueKind::Other;
  if (in_list(name, {"equal", "allclose", "is_nonzero"})) return ValueKind::DataScalar;
  if (name[0] >= 'A' && name[0] <= 'Z') {
    return ends_with(name, "Tensor") ? ValueKind::Tensor : ValueKind::Other;
  }
  if (name[0] == '_' || starts_with(name, "is_") || starts_with(name, "get_") ||
      starts_with(name, "set_") || starts_with(name, "use_") || starts_with(name, "are_")) {
    return ValueKind::Other;
  }
  if (in_list(name, {"finfo",
                     "iinfo",
                     "device",
                     "dtype",
                     "no_grad",
                     "enable_grad",
                     "inference_mode",
                     "autocast",
                     "compile",
                     "manual_seed",
                     "save",
                     "load",
                     "typename",
                     "result_type",
                     "promote_types",
                     "can_cast",
                     "broadcast_shapes",
                     "numel",
                     "vmap",
                     "cond",
                     "seed",
                     "initial_seed",
                     "empty_cache",
                     "set_grad_enabled",
                     "from_file",
                     "jit",
                     "export"})) {
    return ValueKind::Other;
  }
  if (in_list(name, kTupleOps)) return ValueKind::TensorTuple;
  if (in_list(name, {"max", "min", "median", "nanmedian"})) {
    if (find_keyword(call, "dim") != nullptr) return ValueKind::TensorTuple;
    if (call.args.size >= 2 && !is_tensor_kind(a.kind_of(*call.args[1]))) {
      return ValueKind::TensorTuple;
    }
    return ValueKind::Tensor;
  }
  if (name == "where" && call.args.size == 1) return ValueKind::TensorTuple;
  if (name == "nonzero") {
    if (const ast::keyword* k = find_keyword(call, "as_tuple")) {
      const auto* c = as<ast::Constant>(k->value);
      if (!c || c->value.type != ast::ConstantValue::Type::False) return ValueKind::TensorTuple;
    }
    return ValueKind::Tensor;
  }
  if (in_list(name, kBoolOps)) return ValueKind::BoolTensor;
  if (const ast::keyword* k = find_keyword(call, "dtype")) {
    if (a.qualify(k->value, scope) == "torch.bool") return ValueKind::BoolTensor;
  }
  return ValueKind::Tensor;
}

bool is_bool_dtype_arg(const ast::Call& call, const AnalysisImpl& a, int scope) {
  for (const ast::expr* arg : call.args) {
    if (a.qualify(arg, scope) == "torch.bool") return true;
  }
  if (const ast::keyword* k = find_keyword(call, "dtype")) {
    return a.qualify(k->value, scope) == "torch.bool";
  }
  return false;
}

}  // namespace

ValueKind AnalysisImpl::call_kind(const ast::Call& call, int scope, int depth) const {
  const ast::expr* func = call.func;
  std::string q = qualify(func, scope);
  if (!q.empty()) {
    if (starts_with(q, "torch.")) {
      return torch_function_kind(std::string_view(q).substr(6), call, *this, scope);
    }
    return ValueKind::Other;
  }
  auto first_arg_tensor = [&]() {
    return !call.args.empty() && is_tensor_kind(kind_rec(call.args[0], scope, depth + 1));
  };
  if (const auto* name = as<ast::Name>(func)) {
    const Binding* b = lookup(scope, name->id);
    if (b == nullptr) {
      if (in_list(name->id, {"int", "float", "bool", "complex"}) && call.args.size == 1) {
        return is_data_kind(kind_rec(call.args[0], scope, depth + 1)) ? ValueKind::DataScalar
                                                                      : ValueKind::Other;
      }
      if (name->id == "abs" && call.args.size == 1) {
        ValueKind k = kind_rec(call.args[0], scope, depth + 1);
        return k == ValueKind::BoolTensor ? ValueKind::Tensor : k;
      }
      return ValueKind::Other;
    }
    if (!b->conflicting && b->kind == BindKind::Instance && b->class_index >= 0 &&
        classes_[b->class_index].is_module && first_arg_tensor()) {
      return ValueKind::Tensor;
    }
    return ValueKind::Other;
  }
  // self.layers[i](x): a submodule call
  if (const auto* sub = as<ast::Subscript>(func)) {
    const ast::expr* root = sub->value;
    while (const auto* at = as<ast::Attribute>(root)) root = at->value;
    if (const auto* recv = as<ast::Name>(root)) {
      int klass = self_class_of_scope(scope, recv->id);
      if (klass >= 0 && classes_[klass].is_module && first_arg_tensor()) return ValueKind::Tensor;
    }
    return ValueKind::Other;
  }
  const auto* attr = as<ast::Attribute>(func);
  if (attr == nullptr) return ValueKind::Other;
  std::string_view m = attr->attr;
  // self.<submodule>(x) / self.a.b(x) in an nn.Module method
  {
    const ast::expr* root = attr->value;
    int hops = 0;
    while (const auto* at = as<ast::Attribute>(root)) root = at->value, ++hops;
    if (const auto* recv = as<ast::Name>(root)) {
      int klass = self_class_of_scope(scope, recv->id);
      if (klass >= 0) {
        if (hops == 0 && find_method(klass, m) != nullptr) return ValueKind::Other;
        if (classes_[klass].is_module && first_arg_tensor()) return ValueKind::Tensor;
        return ValueKind::Other;
      }
      if (hops == 0) {
        const Binding* b = lookup(scope, recv->id);
        if (b && (b->kind == BindKind::Import || b->kind == BindKind::Class)) {
          return ValueKind::Other;
        }
      }
    }
  }
  ValueKind rk = kind_rec(attr->value, scope, depth + 1);
  if (!is_tensor_kind(rk)) {
    if (rk == ValueKind::TensorTuple || known_non_tensor(attr->value, scope, 0)) {
      return ValueKind::Other;
    }
    // A reduction is a tensor op whatever the receiver: the design's data-dependence rule.
    if (in_list(m, {"item", "tolist"}) && call.args.empty()) return ValueKind::DataScalar;
    if (!in_list(m, kReductions)) return ValueKind::Other;
    rk = ValueKind::Tensor;
  }
  if (in_list(m, {"item", "tolist", "equal", "allclose", "is_nonzero"})) {
    return ValueKind::DataScalar;
  }
  if (starts_with(m, "is_") || in_list(m, kNonTensorMethods)) {
    if (m == "type" && !call.args.empty()) return ValueKind::Tensor;
    return ValueKind::Other;
  }
  if (in_list(m, kTupleOps)) return ValueKind::TensorTuple;
  if (in_list(m, {"max", "min", "median", "nanmedian"})) {
    if (find_keyword(call, "dim") != nullptr) return ValueKind::TensorTuple;
    if (!call.args.empty() && !is_tensor_kind(kind_rec(call.args[0], scope, depth + 1))) {
      return ValueKind::TensorTuple;
    }
    return ValueKind::Tensor;
  }
  if (in_list(m, kBoolOps)) return ValueKind::BoolTensor;
  if ((m == "to" || m == "type") && is_bool_dtype_arg(call, *this, scope)) {
    return ValueKind::BoolTensor;
  }
  if (rk == ValueKind::BoolTensor && in_list(m, kShapeOps)) return ValueKind::BoolTensor;
  if (rk == ValueKind::BoolTensor && m == "to" && !call.args.empty() &&
      !is_bool_dtype_arg(call, *this, scope)) {
    bool dtype = find_keyword(call, "dtype") != nullptr;
    for (const ast::expr* arg : call.args) {
      std::string aq = qualify(arg, scope);
      if (starts_with(aq, "torch.") && aq != "torch.device") dtype = true;
      if (const auto* at = as<ast::Attribute>(arg); at && at->attr == "dtype") dtype = true;
    }
    return dtype ? ValueKind::Tensor : ValueKind::BoolTensor;
  }
  return ValueKind::Tensor;
}

// Values shown not to be tensors: literals, results of other modules' functions (numpy,
// math), parameters annotated with builtin types, and names bound only to such values.
// They keep the reduction rule (`x.max()` is a tensor op) off numpy code.
bool AnalysisImpl::known_non_tensor(const ast::expr* e, int scope, int depth) const {
  if (depth == 0) non_tensor_budget_ = 256;  // names fan out over definitions: bound the work
  if (e == nullptr || depth > 8 || --non_tensor_budget_ < 0) return false;
  if (is_literal(e)) return true;
  if (const auto* name = as<ast::Name>(e)) {
    Flow* flow = flow_for_scope(scope);
    if (flow == nullptr) return false;
    auto var = flow->var_ids.find(name->id);
    if (var == flow->var_ids.end()) return false;
    int node = flow->node_at(name->begin);
    if (node < 0) return false;
    bool any = false;
    for (uint32_t d : flow->defs_of_var[var->second]) {
      if (!flow->reaches(d, static_cast<uint32_t>(node))) continue;
      const Def& def = flow->defs[d];
      if (def.source == Def::Source::Unbound) continue;
      any = true;
      if (def.source == Def::Source::Value) {
        if (!known_non_tensor(def.value, scope, depth + 1)) return false;
      } else if (def.source == Def::Source::Param) {
        const auto* a = as<ast::arg>(def.origin);
        const ast::expr* ann = a ? a->annotation : nullptr;
        const auto* n = as<ast::Name>(ann);
        if (n == nullptr ||
            !in_list(n->id, {"int", "float", "bool", "str", "list", "tuple", "dict"})) {
          std::string q = ann ? qualify(ann, 0) : std::string();
          if (!starts_with(q, "numpy.")) return false;
        }
      } else {
        return false;
      }
    }
    return any;
  }
  if (const auto* b = as<ast::BinOp>(e)) {
    return known_non_tensor(b->left, scope, depth + 1) &&
           known_non_tensor(b->right, scope, depth + 1);
  }
  // np.array(...), np.broadcast_to(...)[...], math.floor(...)
  const ast::expr* root = e;
  for (int guard = 0; guard < 32; ++guard) {
    if (const auto* c = as<ast::Call>(root)) {
      root = c->func;
    } else if (const auto* a = as<ast::Attribute>(root)) {
      root = a->value;
    } else if (const auto* sub = as<ast::Subscript>(root)) {
      root = sub->value;
    } else {
      break;
    }
  }
  if (root == e) return false;
  const auto* base = as<ast::Name>(root);
  if (base == nullptr) return false;
  if (!is<ast::Call>(e) && !is<ast::Subscript>(e)) return false;
  const Binding* b = lookup(scope, base->id);
  if (b != nullptr && !b->conflicting && b->kind == BindKind::Import) {
    return b->path.find("torch") == std::string::npos;
  }
  // methods of a known non-tensor (arr.reshape(...) on a numpy array) stay non-tensors
  return known_non_tensor(base, scope, depth + 1);
}

ValueKind AnalysisImpl::kind_of_name(const ast::Name& name, int scope) const {
  Flow* flow = flow_for_scope(scope);
  if (flow == nullptr) return ValueKind::Other;
  auto it = flow->var_ids.find(name.id);
  if (it == flow->var_ids.end()) return ValueKind::Other;
  int node = flow->node_at(name.begin);
  bool any = false;
  return join_defs(*flow, it->second, node < 0 ? UINT32_MAX : static_cast<uint32_t>(node), &any);
}

ValueKind AnalysisImpl::def_kind(const Flow& flow, uint32_t d) const {
  const Def& def = flow.defs[d];
  int scope = flow.scope;
  switch (def.source) {
    case Def::Source::Param: {
      const auto* a = as<ast::arg>(def.origin);
      if (a == nullptr || a->annotation == nullptr) return ValueKind::Other;
      int outer = scope > 0 ? scopes_[scope].parent : 0;
      if (const auto* c = as<ast::Constant>(a->annotation)) {
        if (c->value.type == ast::ConstantValue::Type::Str &&
            (c->value.text == "torch.Tensor" || c->value.text == "Tensor")) {
          return ValueKind::Tensor;
        }
        return ValueKind::Other;
      }
      return qualify(a->annotation, outer < 0 ? 0 : outer) == "torch.Tensor" ? ValueKind::Tensor
                                                                             : ValueKind::Other;
    }
    case Def::Source::Value:
      return kind_rec(def.value, scope, 1);
    case Def::Source::Unpack: {
      const ast::expr* v = def.value;
      const ast::Seq<ast::expr*>* elts = nullptr;
      if (const auto* t = as<ast::Tuple>(v)) elts = &t->elts;
      if (const auto* l = as<ast::List>(v)) elts = &l->elts;
      if (elts != nullptr) {
        for (const ast::expr* x : *elts) {
          if (is<ast::Starred>(x)) return ValueKind::Other;
        }
        if (def.index >= 0 && static_cast<uint32_t>(def.index) < elts->size) {
          return kind_rec((*elts)[def.index], scope, 1);
        }
        return ValueKind::Other;
      }
      return kind_rec(v, scope, 1) == ValueKind::TensorTuple ? ValueKind::Tensor : ValueKind::Other;
    }
    case Def::Source::AugAssign: {
      const auto* aug = as<ast::AugAssign>(def.origin);
      bool any = false;
      ValueKind l = join_defs(flow, def.var, def.node, &any);
      ValueKind r = kind_rec(aug->value, scope, 1);
      if (is_tensor_kind(l) || is_tensor_kind(r)) {
        if (l == ValueKind::BoolTensor && r == ValueKind::BoolTensor &&
            (aug->op == ast::OperatorKind::BitAnd || aug->op == ast::OperatorKind::BitOr ||
             aug->op == ast::OperatorKind::BitXor)) {
          return ValueKind::BoolTensor;
        }
        return ValueKind::Tensor;
      }
      if (l == ValueKind::DataScalar || r == ValueKind::DataScalar) return ValueKind::DataScalar;
      return ValueKind::Other;
    }
    case Def::Source::ForTarget: {
      ValueKind k = kind_rec(def.value, scope, 1);
      if (is_tensor_kind(k) || k == ValueKind::TensorTuple) return ValueKind::Tensor;
      return ValueKind::Other;
    }
    default:
      return ValueKind::Other;
  }
}

void AnalysisImpl::compute_def_kinds(Flow& flow) const {
  flow.kind_state = Flow::KindState::Computing;
  size_t n = flow.defs.size();
  flow.def_kinds.assign(n, ValueKind::Other);
  flow.def_kind_known.assign(n, false);
  // Definitions are numbered from the end of the function backwards: visiting them in
  // reverse numbering follows program order, so most are known before they are read. A
  // definition that only reads still-unknown ones stays unknown (optimistic) for a round.
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    for (uint32_t d = static_cast<uint32_t>(n); d-- > 0;) {
      if (flow.defs[d].source == Def::Source::Unbound) continue;
      pending_seen_ = false;
      ValueKind k = def_kind(flow, d);
      if (pending_seen_ && k == ValueKind::Other && round < 7) continue;
      if (!flow.def_kind_known[d] || k != flow.def_kinds[d]) {
        flow.def_kinds[d] = k;
        flow.def_kind_known[d] = true;
        changed = true;
      }
    }
    if (!changed) break;
  }
  flow.kind_state = Flow::KindState::Done;
}

ValueKind AnalysisImpl::join_defs(const Flow& flow, uint32_t var, uint32_t node,
                                  bool* any_def) const {
  if (flow.kind_state == Flow::KindState::NotStarted) {
    compute_def_kinds(const_cast<Flow&>(flow));
  }
  bool first = true;
  bool pending = false;
  ValueKind out = ValueKind::Other;
  for (uint32_t d : flow.defs_of_var[var]) {
    if (node != UINT32_MAX && node < flow.nodes.size() && !flow.reaches(d, node)) continue;
    if (flow.defs[d].source == Def::Source::Unbound) continue;
    *any_def = true;
    if (!flow.def_kind_known[d]) {  // optimistic while the fixpoint runs
      pending = true;
      continue;
    }
    ValueKind k = flow.def_kinds[d];
    out = first ? k : join_kind(out, k);
    first = false;
  }
  if (first && pending) pending_seen_ = true;
  return first ? ValueKind::Other : out;
}

// ---------------------------------------------------------------------------------------------
// Purity

namespace {

const std::unordered_set<std::string_view> kPureTorch = {
    "where",        "abs",          "exp",
    "log",          "log1p",        "expm1",
    "sigmoid",      "tanh",         "relu",
    "softmax",      "log_softmax",  "matmul",
    "mm",           "bmm",          "cat",
    "concat",       "concatenate",  "stack",
    "zeros_like",   "ones_like",    "full_like",
    "clamp",        "clip",         "maximum",
    "minimum",      "logical_and",  "logical_or",
    "logical_not",  "logical_xor",  "isinf",
    "isnan",        "isfinite",     "isneginf",
    "isposinf",     "finfo",        "iinfo",
    "any",          "all",          "sum",
    "max",          "amax",         "min",
    "amin",         "mean",         "prod",
    "sqrt",         "rsqrt",        "pow",
    "neg",          "negative",     "sign",
    "sin",          "cos",          "erf",
    "exp2",         "floor",        "ceil",
    "round",        "trunc",        "tril",
    "triu",         "transpose",    "permute",
    "reshape",      "flatten",      "squeeze",
    "unsqueeze",    "gather",       "index_select",
    "masked_fill",  "add",          "sub",
    "subtract",     "mul",          "multiply",
    "div",          "divide",       "true_divide",
    "eq",           "ne",           "lt",
    "le",           "gt",           "ge",
    "greater",      "less",         "greater_equal",
    "less_equal",   "not_equal",    "equal",
    "zeros",        "ones",         "full",
    "arange",       "tensor",       "as_tensor",
    "einsum",       "outer",        "norm",
    "argmax",       "argmin",       "cumsum",
    "cumprod",      "logsumexp",    "baddbmm",
    "addmm",        "flip",         "roll",
    "broadcast_to", "lerp",         "addcmul",
    "fmod",         "remainder",    "atan2",
    "square",       "reciprocal",   "scalar_tensor",
    "diag",         "eye",          "chunk",
    "split",        "unbind",       "topk",
    "sort",         "narrow",       "select",
    "movedim",      "swapaxes",     "real",
    "imag",         "view_as_real", "view_as_complex",
    "polar",        "cos",          "sinh",
    "cosh",         "asin",         "acos",
    "atan",         "softplus",     "float_power",
    "isin",         "isclose",      "count_nonzero",
    "std",          "var",          "median",
    "signbit",      "bitwise_and",  "bitwise_or",
    "bitwise_not",  "bitwise_xor",  "logaddexp",
    "hypot",        "clamp_min",    "clamp_max",
    "minimum",      "nan_to_num",   "erfinv",
    "sgn",          "expand_copy",  "broadcast_tensors"};

const std::unordered_set<std::string_view> kPureFunctional = {
    "relu",        "relu6",    "gelu",       "silu",
    "sigmoid",     "tanh",     "softmax",    "log_softmax",
    "softplus",    "elu",      "selu",       "celu",
    "leaky_relu",  "mish",     "hardtanh",   "hardswish",
    "hardsigmoid", "glu",      "logsigmoid", "softsign",
    "tanhshrink",  "softmin",  "normalize",  "pad",
    "layer_norm",  "linear",   "threshold",  "hardshrink",
    "softshrink",  "rms_norm", "group_norm", "cosine_similarity",
    "prelu",       "rrelu_"};

const std::unordered_set<std::string_view> kPureMethods = {"sum",
                                                           "mean",
                                                           "max",
                                                           "min",
                                                           "amax",
                                                           "amin",
                                                           "abs",
                                                           "float",
                                                           "half",
                                                           "double",
                                                           "bfloat16",
                                                           "int",
                                                           "long",
                                                           "bool",
                                                           "short",
                                                           "byte",
                                                           "to",
                                                           "type_as",
                                                           "view",
                                                           "view_as",
                                                           "reshape",
                                                           "reshape_as",
                                                           "transpose",
                                                           "permute",
                                                           "contiguous",
                                                           "clone",
                                                           "masked_fill",
                                                           "clamp",
                                                           "clip",
                                                           "clamp_min",
                                                           "clamp_max",
                                                           "any",
                                                           "all",
                                                           "exp",
                                                           "log",
                                                           "log1p",
                                                           "sigmoid",
                                                           "tanh",
                                                           "relu",
                                                           "softmax",
                                                           "log_softmax",
                                                           "sqrt",
                                                           "rsqrt",
                                                           "pow",
                                                           "neg",
                                                           "unsqueeze",
                                                           "squeeze",
                                                           "flatten",
                                                           "unflatten",
                                                           "expand",
                                                           "expand_as",
                                                           "repeat",
                                                           "t",
                                                           "matmul",
                                                           "mm",
                                                           "bmm",
                                                           "size",
                                                           "dim",
                                                           "numel",
                                                           "eq",
                                                           "ne",
                                                           "lt",
                                                           "le",
                                                           "gt",
                                                           "ge",
                                                           "logical_and",
                                                           "logical_or",
                                                           "logical_not",
                                                           "logical_xor",
                                                           "isnan",
                                                           "isinf",
                                                           "isfinite",
                                                           "where",
                                                           "detach",
                                                           "norm",
                                                           "cumsum",
                                                           "cumprod",
                                                           "argmax",
                                                           "argmin",
                                                           "prod",
                                                           "std",
                                                           "var",
                                                           "sign",
                                                           "floor",
                                                           "ceil",
                                                           "round",
                                                           "new_zeros",
                                                           "new_ones",
                                                           "new_full",
                                                           "new_tensor",
                                                           "gather",
                                                           "index_select",
                                                           "narrow",
                                                           "select",
                                                           "split",
                                                           "chunk",
                                                           "unbind",
                                                           "flip",
                                                           "roll",
                                                           "tril",
                                                           "triu",
                                                           "add",
                                                           "sub",
                                                           "mul",
                                                           "div",
                                                           "true_divide",
                                                           "square",
                                                           "reciprocal",
                                                           "sin",
                                                           "cos",
                                                           "erf",
                                                           "movedim",
                                                           "swapaxes",
                                                           "type",
                                                           "ndimension",
                                                           "nelement",
                                                           "element_size",
                                                           "is_floating_point",
                                                           "is_contiguous",
                                                           "broadcast_to",
                                                           "softplus",
                                                           "nan_to_num",
                                                           "masked_scatter",
                                                           "lerp",
                                                           "addcmul",
                                                           "bitwise_and",
                                                           "bitwise_or",
                                                           "bitwise_not",
                                                           "logsumexp",
                                                           "topk",
                                                           "sort",
                                                           "stride",
                                                           "count_nonzero",
                                                           "signbit",
                                                           "isin",
                                                           "isclose",
                                                           "float_power"};

bool is_dtype_like(const ast::expr* arg, const AnalysisImpl& a, int scope) {
  if (const auto* at = as<ast::Attribute>(arg); at && at->attr == "dtype") return true;
  std::string q = a.qualify(arg, scope);
  if (!starts_with(q, "torch.")) return false;
  std::string_view t = std::string_view(q).substr(6);
  return in_list(t, {"float16", "float32", "float64",   "bfloat16",   "half",   "float",  "double",
                     "int8",    "int16",   "int32",     "int64",      "uint8",  "long",   "int",
                     "short",   "bool",    "complex64", "complex128", "cfloat", "cdouble"});
}

}  // namespace

bool AnalysisImpl::is_pure(const ast::expr& e) const { return pure_rec(&e, scope_of(&e), 0); }

bool AnalysisImpl::is_pure(const ast::expr& e, const PurityFacts& facts) const {
  return pure_rec(&e, scope_of(&e), 0, &facts);
}

bool AnalysisImpl::is_number(const ast::expr& e, const PurityFacts& facts) const {
  return number_rec(&e, scope_of(&e), 0, facts);
}

namespace {
const std::unordered_set<std::string_view> kFloatingDtypes = {
    "torch.float16", "torch.half",    "torch.bfloat16", "torch.float32",
    "torch.float",   "torch.float64", "torch.double",
};
const std::unordered_set<std::string_view> kFinfoFields = {
    "max", "min", "eps", "tiny", "smallest_normal", "resolution", "bits",
};
}  // namespace

// A literal floating dtype (`torch.float16`) or a dtype expression `facts` show floating.
bool AnalysisImpl::is_floating_dtype(const ast::expr* e, int scope,
                                     const PurityFacts* facts) const {
  if (kFloatingDtypes.count(qualify(e, scope))) return true;
  if (facts == nullptr) return false;
  std::string_view text = source_.text().substr(e->begin, e->end - e->begin);
  return std::find(facts->floating_dtypes.begin(), facts->floating_dtypes.end(), text) !=
         facts->floating_dtypes.end();
}

bool AnalysisImpl::number_rec(const ast::expr* e, int scope, int depth,
                              const PurityFacts& facts) const {
  if (e == nullptr || depth > kMaxDepth) return false;
  switch (e->kind) {
    case ast::Kind::Constant: {
      auto type = as<ast::Constant>(e)->value.type;
      return type == ast::ConstantValue::Type::Int || type == ast::ConstantValue::Type::Float;
    }
    case ast::Kind::Name: {
      const auto& names = facts.numeric_names;
      return std::find(names.begin(), names.end(), as<ast::Name>(e)->id) != names.end();
    }
    case ast::Kind::Attribute: {
      // torch.finfo(<floating dtype>).max
      const auto* a = as<ast::Attribute>(e);
      const auto* call = as<ast::Call>(a->value);
      if (call == nullptr || !kFinfoFields.count(a->attr) || call->args.size != 1 ||
          !call->keywords.empty() || qualify(call->func, scope) != "torch.finfo") {
        return false;
      }
      return is_floating_dtype(call->args[0], scope, &facts);
    }
    case ast::Kind::UnaryOp: {
      const auto* u = as<ast::UnaryOp>(e);
      return (u->op == ast::UnaryOpKind::USub || u->op == ast::UnaryOpKind::UAdd) &&
             number_rec(u->operand, scope, depth + 1, facts);
    }
    case ast::Kind::BinOp: {
      const auto* b = as<ast::BinOp>(e);
      return (b->op == ast::OperatorKind::Add || b->op == ast::OperatorKind::Sub ||
              b->op == ast::OperatorKind::Mult) &&
             number_rec(b->left, scope, depth + 1, facts) &&
             number_rec(b->right, scope, depth + 1, facts);
    }
    default:
      return false;
  }
}

void AnalysisImpl::add_floating_dtypes(const ast::expr& condition, PurityFacts& facts) const {
  const auto* c = as<ast::Compare>(&condition);
  if (c == nullptr || c->ops.size != 1) return;
  const auto* dtype = as<ast::Attribute>(c->left);
  if (dtype == nullptr || dtype->attr != "dtype") return;
  int scope = scope_of(&condition);
  bool floating = false;
  if (c->ops[0] == ast::CmpOpKind::Eq) {
    floating = is_floating_dtype(c->comparators[0], scope, nullptr);
  } else if (c->ops[0] == ast::CmpOpKind::In) {
    const ast::Seq<ast::expr*>* options = nullptr;
    if (const auto* t = as<ast::Tuple>(c->comparators[0])) options = &t->elts;
    if (const auto* l = as<ast::List>(c->comparators[0])) options = &l->elts;
    if (const auto* st = as<ast::Set>(c->comparators[0])) options = &st->elts;
    floating = options != nullptr && options->size > 0;
    if (options != nullptr) {
      for (const ast::expr* option : *options) {
        floating = floating && is_floating_dtype(option, scope, nullptr);
      }
    }
  }
  if (floating)
    facts.floating_dtypes.emplace_back(
        source_.text().substr(dtype->begin, dtype->end - dtype->begin));
}

bool AnalysisImpl::pure_rec(const ast::expr* e, int scope, int depth,
                            const PurityFacts* facts) const {
  if (e == nullptr) return true;
  if (depth > kMaxDepth) return false;
  if (facts != nullptr && number_rec(e, scope, depth, *facts)) return true;
  auto pure = [&](const ast::expr* x) { return pure_rec(x, scope, depth + 1, facts); };
  auto tensor = [&](const ast::expr* x) { return is_tensor_kind(kind_rec(x, scope, depth + 1)); };
  auto has_tensor_index = [&](const ast::expr* index) {
    if (const auto* parts = as<ast::Tuple>(index)) {
      for (const ast::expr* part : parts->elts) {
        if (!is<ast::Slice>(part) && tensor(part)) return true;
      }
      return false;
    }
    return !is<ast::Slice>(index) && tensor(index);
  };
  switch (e->kind) {
    case ast::Kind::Constant:
    case ast::Kind::Name:
    case ast::Kind::Lambda:
      return true;
    case ast::Kind::Attribute: {
      const auto* a = as<ast::Attribute>(e);
      return a->ctx == ast::ExprContext::Load && pure(a->value);
    }
    case ast::Kind::Subscript: {
      const auto* s = as<ast::Subscript>(e);
      if (s->ctx != ast::ExprContext::Load || !pure(s->value) || !pure(s->slice)) return false;
      // Indexing with a tensor can raise for some values (out of bounds): a branch on a
      // tensor condition often guards exactly that, so it is not safe to evaluate eagerly.
      if (has_tensor_index(s->slice)) return false;
      ValueKind k = kind_rec(s->value, scope, depth + 1);
      if (is_tensor_kind(k) || k == ValueKind::TensorTuple) return true;
      if (const auto* at = as<ast::Attribute>(s->value); at && at->attr == "shape") return true;
      return false;
    }
    case ast::Kind::Slice: {
      const auto* s = as<ast::Slice>(e);
      return pure(s->lower) && pure(s->upper) && pure(s->step);
    }
    case ast::Kind::Tuple: {
      for (const ast::expr* x : as<ast::Tuple>(e)->elts) {
        if (is<ast::Starred>(x) || !pure(x)) return false;
      }
      return true;
    }
    case ast::Kind::List: {
      for (const ast::expr* x : as<ast::List>(e)->elts) {
        if (is<ast::Starred>(x) || !pure(x)) return false;
      }
      return true;
    }
    case ast::Kind::BinOp: {
      const auto* b = as<ast::BinOp>(e);
      if (!pure(b->left) || !pure(b->right)) return false;
      if (tensor(b->left) || tensor(b->right)) return true;
      // constant folding such as -1e4 * 2 cannot raise either
      return is<ast::Constant>(b->left) && is<ast::Constant>(b->right) &&
             b->op != ast::OperatorKind::Div && b->op != ast::OperatorKind::FloorDiv &&
             b->op != ast::OperatorKind::Mod && b->op != ast::OperatorKind::Pow;
    }
    case ast::Kind::UnaryOp: {
      const auto* u = as<ast::UnaryOp>(e);
      if (!pure(u->operand)) return false;
      if (u->op == ast::UnaryOpKind::Not) return !tensor(u->operand);
      if (tensor(u->operand)) return true;
      const auto* c = as<ast::Constant>(u->operand);
      return c && (c->value.type == ast::ConstantValue::Type::Int ||
                   c->value.type == ast::ConstantValue::Type::Float);
    }
    case ast::Kind::Compare: {
      const auto* c = as<ast::Compare>(e);
      if (!pure(c->left)) return false;
      for (const ast::expr* x : c->comparators) {
        if (!pure(x)) return false;
      }
      bool identity = true;
      for (ast::CmpOpKind op : c->ops) {
        identity &= op == ast::CmpOpKind::Is || op == ast::CmpOpKind::IsNot;
      }
      if (identity) return true;
      if (c->ops.size != 1) return false;
      return tensor(c->left) || tensor(c->comparators[0]);
    }
    case ast::Kind::BoolOp: {
      for (const ast::expr* v : as<ast::BoolOp>(e)->values) {
        if (!pure(v) || tensor(v)) return false;
      }
      return true;
    }
    case ast::Kind::IfExp: {
      const auto* i = as<ast::IfExp>(e);
      return pure(i->test) && !tensor(i->test) && pure(i->body) && pure(i->orelse);
    }
    case ast::Kind::Call: {
      const auto* call = as<ast::Call>(e);
      for (const ast::expr* arg : call->args) {
        if (is<ast::Starred>(arg) || !pure(arg)) return false;
      }
      for (const ast::keyword* k : call->keywords) {
        if (k->arg.empty() || k->arg == "out" || !pure(k->value)) return false;
        if (k->arg == "inplace") {
          const auto* c = as<ast::Constant>(k->value);
          if (!c || c->value.type != ast::ConstantValue::Type::False) return false;
        }
      }
      std::string q = qualify(call->func, scope);
      if (!q.empty()) {
        if (!starts_with(q, "torch.")) return false;
        std::string_view name = std::string_view(q).substr(6);
        if (starts_with(name, "nn.functional.")) return in_list(name.substr(14), kPureFunctional);
        if (starts_with(name, "special.")) return true;
        return in_list(name, kPureTorch);
      }
      const auto* attr = as<ast::Attribute>(call->func);
      if (attr == nullptr) {
        if (const auto* name = as<ast::Name>(call->func)) {
          if (lookup(scope, name->id) == nullptr && in_list(name->id, {"isinstance", "len"})) {
            return true;
          }
        }
        return false;
      }
      std::string_view m = attr->attr;
      if (!m.empty() && m.back() == '_') return false;  // in place
      if (!pure(attr->value) || !tensor(attr->value)) return false;
      if (!in_list(m, kPureMethods)) return false;
      if (m == "to" || m == "type") {  // only dtype conversions
        if (call->args.empty() && call->keywords.empty()) return m == "to";
        for (const ast::expr* arg : call->args) {
          if (!is_dtype_like(arg, *this, scope)) return false;
        }
        for (const ast::keyword* k : call->keywords) {
          if (k->arg != "dtype") return false;
        }
      }
      return true;
    }
    default:
      return false;  // comprehensions, f-strings, await, yield, walrus, dict/set displays
  }
}

// ---------------------------------------------------------------------------------------------
// Statement-list queries

namespace {

void collect_target_names(const ast::expr* t, std::vector<std::string_view>& out, int depth) {
  if (t == nullptr || depth > 64) return;
  switch (t->kind) {
    case ast::Kind::Name:
      out.push_back(as<ast::Name>(t)->id);
      break;
    case ast::Kind::Tuple:
      for (const ast::expr* e : as<ast::Tuple>(t)->elts) collect_target_names(e, out, depth + 1);
      break;
    case ast::Kind::List:
      for (const ast::expr* e : as<ast::List>(t)->elts) collect_target_names(e, out, depth + 1);
      break;
    case ast::Kind::Starred:
      collect_target_names(as<ast::Starred>(t)->value, out, depth + 1);
      break;
    default:
      break;
  }
}

void collect_pattern_names(const ast::Node* p, std::vector<std::string_view>& out, int depth) {
  if (p == nullptr || depth > 200) return;
  if (const auto* m = as<ast::MatchAs>(p); m && !m->name.empty()) out.push_back(m->name);
  if (const auto* m = as<ast::MatchStar>(p); m && !m->name.empty()) out.push_back(m->name);
  if (const auto* m = as<ast::MatchMapping>(p); m && !m->rest.empty()) out.push_back(m->rest);
  ast::for_each_child(mut(p), [&](ast::Node* c) { collect_pattern_names(c, out, depth + 1); });
}

// Walrus targets in an expression tree (not inside lambdas), iteratively.
void collect_walrus(const ast::Node* root, std::vector<std::string_view>& out) {
  std::vector<const ast::Node*> stack{root};
  while (!stack.empty()) {
    const ast::Node* n = stack.back();
    stack.pop_back();
    if (n == nullptr || is<ast::Lambda>(n)) continue;
    if (const auto* w = as<ast::NamedExpr>(n)) {
      if (const auto* name = as<ast::Name>(w->target)) out.push_back(name->id);
    }
    size_t mark = stack.size();
    ast::for_each_child(mut(n), [&](ast::Node* c) { stack.push_back(c); });
    std::reverse(stack.begin() + static_cast<long>(mark), stack.end());
  }
}

bool is_stmt_kind(ast::Kind k) { return k >= ast::Kind::FunctionDef && k <= ast::Kind::Continue; }

// Every name a statement binds in its own scope, in order; recurses into nested blocks.
void collect_assigned(const ast::stmt* s, std::vector<std::string_view>& out, int depth) {
  if (s == nullptr || depth > 200) return;
  switch (s->kind) {
    case ast::Kind::FunctionDef:
      out.push_back(as<ast::FunctionDef>(s)->name);
      return;
    case ast::Kind::AsyncFunctionDef:
      out.push_back(as<ast::AsyncFunctionDef>(s)->name);
      return;
    case ast::Kind::ClassDef:
      out.push_back(as<ast::ClassDef>(s)->name);
      return;
    case ast::Kind::Assign: {
      const auto* a = as<ast::Assign>(s);
      collect_walrus(a->value, out);
      for (const ast::expr* t : a->targets) collect_target_names(t, out, 0);
      return;
    }
    case ast::Kind::AugAssign:
      collect_walrus(as<ast::AugAssign>(s)->value, out);
      collect_target_names(as<ast::AugAssign>(s)->target, out, 0);
      return;
    case ast::Kind::AnnAssign: {
      const auto* a = as<ast::AnnAssign>(s);
      if (a->value) {
        collect_walrus(a->value, out);
        collect_target_names(a->target, out, 0);
      }
      return;
    }
    case ast::Kind::For:
      collect_walrus(as<ast::For>(s)->iter, out);
      collect_target_names(as<ast::For>(s)->target, out, 0);
      break;
    case ast::Kind::AsyncFor:
      collect_walrus(as<ast::AsyncFor>(s)->iter, out);
      collect_target_names(as<ast::AsyncFor>(s)->target, out, 0);
      break;
    case ast::Kind::With:
      for (const ast::withitem* w : as<ast::With>(s)->items) {
        collect_walrus(w->context_expr, out);
        collect_target_names(w->optional_vars, out, 0);
      }
      break;
    case ast::Kind::AsyncWith:
      for (const ast::withitem* w : as<ast::AsyncWith>(s)->items) {
        collect_walrus(w->context_expr, out);
        collect_target_names(w->optional_vars, out, 0);
      }
      break;
    case ast::Kind::Import:
      for (const ast::alias* al : as<ast::Import>(s)->names) {
        out.push_back(!al->asname.empty() ? al->asname : al->name.substr(0, al->name.find('.')));
      }
      return;
    case ast::Kind::ImportFrom:
      for (const ast::alias* al : as<ast::ImportFrom>(s)->names) {
        if (al->name != "*") out.push_back(!al->asname.empty() ? al->asname : al->name);
      }
      return;
    case ast::Kind::If:
      collect_walrus(as<ast::If>(s)->test, out);
      break;
    case ast::Kind::While:
      collect_walrus(as<ast::While>(s)->test, out);
      break;
    case ast::Kind::Match: {
      const auto* m = as<ast::Match>(s);
      collect_walrus(m->subject, out);
      for (const ast::match_case* c : m->cases) {
        collect_pattern_names(c->pattern, out, 0);
        if (c->guard) collect_walrus(c->guard, out);
        for (const ast::stmt* b : c->body) collect_assigned(b, out, depth + 1);
      }
      return;
    }
    case ast::Kind::Expr:
    case ast::Kind::Return:
    case ast::Kind::Raise:
    case ast::Kind::Assert:
    case ast::Kind::Delete:
      ast::for_each_child(mut(s), [&](ast::Node* c) { collect_walrus(c, out); });
      return;
    default:
      break;
  }
  // nested statement blocks (and except handlers)
  ast::for_each_child(mut(s), [&](ast::Node* c) {
    if (is_stmt_kind(c->kind)) {
      collect_assigned(static_cast<const ast::stmt*>(c), out, depth + 1);
    } else if (const auto* h = as<ast::ExceptHandler>(c)) {
      if (!h->name.empty()) out.push_back(h->name);
      for (const ast::stmt* b : h->body) collect_assigned(b, out, depth + 1);
    }
  });
}

bool target_writes_state(const ast::expr* t, int depth) {
  if (t == nullptr || depth > 64) return false;
  switch (t->kind) {
    case ast::Kind::Attribute:
    case ast::Kind::Subscript:
      return true;
    case ast::Kind::Tuple:
      for (const ast::expr* e : as<ast::Tuple>(t)->elts) {
        if (target_writes_state(e, depth + 1)) return true;
      }
      return false;
    case ast::Kind::List:
      for (const ast::expr* e : as<ast::List>(t)->elts) {
        if (target_writes_state(e, depth + 1)) return true;
      }
      return false;
    case ast::Kind::Starred:
      return target_writes_state(as<ast::Starred>(t)->value, depth + 1);
    default:
      return false;
  }
}

}  // namespace

std::vector<std::string_view> AnalysisImpl::assigned_names(const ast::Seq<ast::stmt*>& body) const {
  std::vector<std::string_view> all;
  for (const ast::stmt* s : body) collect_assigned(s, all, 0);
  std::vector<std::string_view> out;
  const Scope* scope = body.empty() ? nullptr : &scopes_[scope_of(body[0])];
  std::unordered_set<std::string_view> seen;
  for (std::string_view name : all) {
    if (scope && scope->node != &module_ &&
        (scope->globals.count(name) || scope->nonlocals.count(name))) {
      continue;
    }
    if (seen.insert(name).second) out.push_back(name);
  }
  return out;
}

bool AnalysisImpl::mutates_state(const ast::Seq<ast::stmt*>& body) const {
  std::vector<const ast::Node*> stack;
  for (uint32_t i = body.size; i-- > 0;) stack.push_back(body[i]);
  while (!stack.empty()) {
    const ast::Node* n = stack.back();
    stack.pop_back();
    if (n == nullptr) continue;
    switch (n->kind) {
      case ast::Kind::FunctionDef:
      case ast::Kind::AsyncFunctionDef:
      case ast::Kind::ClassDef:
      case ast::Kind::Lambda:
        continue;  // defining is not mutating
      case ast::Kind::Global:
      case ast::Kind::Nonlocal:
        return true;
      case ast::Kind::Assign:
        for (const ast::expr* t : as<ast::Assign>(n)->targets) {
          if (target_writes_state(t, 0)) return true;
        }
        break;
      case ast::Kind::AugAssign:
        if (target_writes_state(as<ast::AugAssign>(n)->target, 0)) return true;
        break;
      case ast::Kind::AnnAssign:
        if (as<ast::AnnAssign>(n)->value && target_writes_state(as<ast::AnnAssign>(n)->target, 0)) {
          return true;
        }
        break;
      case ast::Kind::Delete:
        for (const ast::expr* t : as<ast::Delete>(n)->targets) {
          if (target_writes_state(t, 0)) return true;
        }
        break;
      case ast::Kind::For:
        if (target_writes_state(as<ast::For>(n)->target, 0)) return true;
        break;
      case ast::Kind::AsyncFor:
        if (target_writes_state(as<ast::AsyncFor>(n)->target, 0)) return true;
        break;
      case ast::Kind::withitem:
        if (target_writes_state(as<ast::withitem>(n)->optional_vars, 0)) return true;
        break;
      case ast::Kind::Call: {
        const auto* call = as<ast::Call>(n);
        if (const auto* attr = as<ast::Attribute>(call->func)) {
          std::string_view m = attr->attr;
          if (m.size() > 1 && m.back() == '_' && m.front() != '_') return true;
          if (in_list(m, {"append", "extend", "insert", "pop", "remove", "clear", "update",
                          "setdefault", "popitem", "discard", "register_buffer",
                          "register_parameter", "register_module", "add_module", "__setitem__",
                          "__setattr__", "__delitem__"})) {
            return true;
          }
          if (m == "add" && !is_tensor(*attr->value)) return true;  // set.add
        } else if (const auto* name = as<ast::Name>(call->func)) {
          if (in_list(name->id, {"setattr", "delattr"})) return true;
        }
        break;
      }
      default:
        break;
    }
    ast::for_each_child(mut(n), [&](ast::Node* c) { stack.push_back(c); });
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Flow-based queries

Flow* AnalysisImpl::flow_for_scope(int scope) const {
  if (scope < 0 || static_cast<size_t>(scope) >= flows_.size()) return nullptr;
  if (!flows_[scope]) flows_[scope] = build_flow(*this, scope);
  return flows_[scope].get();
}

namespace {

bool bit(const uint64_t* words, uint32_t i) { return ((words[i >> 6] >> (i & 63)) & 1) != 0; }

// Whether some real definition of `var` reaches `node` (a captured variable is live from
// its first binding on, since the closure may read it at any later time).
bool bound_somewhere(const Flow& flow, uint32_t var, uint32_t node) {
  for (uint32_t d : flow.defs_of_var[var]) {
    if (flow.reaches(d, node) && flow.defs[d].source != Def::Source::Unbound) return true;
  }
  return false;
}

std::vector<std::string_view> live_names(const Flow& flow, const uint64_t* live,
                                         uint32_t reach_node, bool everything) {
  std::vector<std::string_view> out;
  for (uint32_t v = 0; v < flow.var_names.size(); ++v) {
    if (everything || bit(live, v) || (flow.captured[v] && bound_somewhere(flow, v, reach_node))) {
      out.push_back(flow.var_names[v]);
    }
  }
  return out;
}

}  // namespace

std::vector<std::string_view> AnalysisImpl::live_after(const ast::stmt& statement) const {
  Flow* flow = flow_for_scope(scope_of(&statement));
  if (flow == nullptr) return {};
  bool jump = statement.kind == ast::Kind::Return || statement.kind == ast::Kind::Raise ||
              statement.kind == ast::Kind::Break || statement.kind == ast::Kind::Continue;
  if (jump) {
    // control leaves through the jump's own edges, not to the next statement
    auto it = flow->entry_of.find(&statement);
    if (it == flow->entry_of.end() || flow->all_live) {
      return live_names(*flow, nullptr, 0, true);
    }
    const FlowNode& node = flow->nodes[it->second];
    std::vector<uint64_t> live(flow->var_words, 0);
    for (uint32_t succ : node.succ) {
      for (size_t k = 0; k < flow->var_words; ++k)
        live[k] |= flow->live_in[succ * flow->var_words + k];
    }
    return live_names(*flow, live.data(), it->second, false);
  }
  auto it = flow->after.find(&statement);
  if (it == flow->after.end() || flow->all_live) return live_names(*flow, nullptr, 0, true);
  return live_names(*flow, &flow->live_in[it->second * flow->var_words], it->second, false);
}

std::vector<std::string_view> AnalysisImpl::live_before(const ast::stmt& statement) const {
  Flow* flow = flow_for_scope(scope_of(&statement));
  if (flow == nullptr) return {};
  auto it = flow->entry_of.find(&statement);
  if (it == flow->entry_of.end() || flow->all_live) return live_names(*flow, nullptr, 0, true);
  return live_names(*flow, &flow->live_in[it->second * flow->var_words], it->second, false);
}

bool AnalysisImpl::is_definitely_bound_before(const ast::stmt& statement,
                                              std::string_view name) const {
  Flow* flow = flow_for_scope(scope_of(&statement));
  if (flow == nullptr) return false;
  auto var = flow->var_ids.find(name);
  auto node = flow->entry_of.find(&statement);
  if (var == flow->var_ids.end() || node == flow->entry_of.end()) return false;
  bool any = false;
  for (uint32_t d : flow->defs_of_var[var->second]) {
    if (!flow->reaches(d, node->second)) continue;
    if (flow->defs[d].source == Def::Source::Unbound) return false;
    any = true;
  }
  return any;
}

bool AnalysisImpl::is_tensor_before(const ast::stmt& statement, std::string_view name) const {
  if (!is_definitely_bound_before(statement, name)) return false;
  Flow* flow = flow_for_scope(scope_of(&statement));
  uint32_t node = flow->entry_of.at(&statement);
  bool any = false;
  return is_tensor_kind(join_defs(*flow, flow->var_ids.at(name), node, &any));
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
