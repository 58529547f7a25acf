// The scope walk: one pre-order pass over the module that records functions, classes,
// bindings per scope and every call site.
#include <algorithm>

#include "sema/analysis_impl.h"
#include "sema/helpers.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

namespace {

constexpr int kMaxWalkDepth = 1500;

}  // namespace

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
    ScopeId scope = kModuleScope;  // function scope
    ClassId klass;                 // class whose body we are directly in
    ClassId method_class;          // class of the method whose body we are in
    std::string_view self_name;
  };

  Binding* binding_slot(const Ctx& c, std::string_view name) {
    if (c.klass.has_value()) return nullptr;  // class attributes are not variables of a function
    ScopeId s = c.scope;
    Scope& scope = a_.scopes_[s.index];
    if (!s.is_module() && scope.globals.count(name)) {
      s = kModuleScope;
    } else if (!s.is_module() && scope.nonlocals.count(name)) {
      s = scope.parent;
      while (s.is_function() && !a_.scopes_[s.index].bindings.count(name)) {
        s = a_.scopes_[s.index].parent;
      }
      if (!s.is_function()) return nullptr;
    }
    auto [it, inserted] = a_.scopes_[s.index].bindings.try_emplace(name);
    if (inserted) it->second.kind = BindKind::Value, it->second.conflicting = false;
    fresh_ = inserted;
    return &it->second;
  }

  void bind(const Ctx& c, std::string_view name, BindKind kind, const ast::expr* value = nullptr,
            std::string path = {}, const ast::Node* definition = nullptr,
            ClassId class_index = ClassId()) {
    if (name.empty()) return;
    Binding* b = binding_slot(c, name);
    if (b == nullptr) return;
    if (kind == BindKind::Value) {
      b->values.push_back(value);
      return;
    }
    if (fresh_ || (b->kind == BindKind::Value && b->definition == nullptr && b->path.empty() &&
                   !b->class_index.has_value() && !b->conflicting && b->values.empty())) {
      b->kind = kind;
      b->path = std::move(path);
      b->definition = definition;
      b->class_index = class_index;
      return;
    }
    if (b->kind == kind && (kind != BindKind::Import || b->path == path)) {
      if (definition != nullptr) b->definition = definition;
      if (class_index.has_value()) b->class_index = class_index;
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
        if (base && c.method_class.has_value() && !c.self_name.empty() && base->id == c.self_name &&
            value != nullptr) {
          a_.classes_[c.method_class.index].pending_attrs.push_back({attr->attr, value});
        }
        walk(attr->value, c, depth + 1);
        break;
      }
      default:
        walk(target, c, depth + 1);  // subscripts: their parts are expressions
        break;
    }
  }

  // `self.register_buffer("name", ...)` / `self.register_parameter("name", ...)` in a method
  void note_registration(const ast::Call& call, const Ctx& c) {
    const auto* method = as<ast::Attribute>(call.func);
    const auto* receiver = method ? as<ast::Name>(method->value) : nullptr;
    if (receiver == nullptr || !c.method_class.has_value() || receiver->id != c.self_name ||
        (method->attr != "register_buffer" && method->attr != "register_parameter"))
      return;
    const auto* name = call.args.empty() ? nullptr : as<ast::Constant>(call.args[0]);
    if (name == nullptr || name->value.type != ast::ConstantValue::Type::Str) return;
    a_.classes_[c.method_class.index].registered_tensors.push_back(name->value.text);
  }

  void bind_pattern(const ast::Node* p, const Ctx& c, int depth) {
    if (p == nullptr || depth > kMaxWalkDepth) return;
    if (const auto* m = as<ast::MatchAs>(p)) bind(c, m->name, BindKind::Other);
    if (const auto* m = as<ast::MatchStar>(p)) bind(c, m->name, BindKind::Other);
    if (const auto* m = as<ast::MatchMapping>(p)) bind(c, m->rest, BindKind::Other);
    ast::for_each_child(p, [&](const ast::Node* child) {
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
    a_.function_parent_.push_back(c.scope.is_function() ? c.scope.function() : -1);
    a_.function_class_.push_back(c.klass);
    if (c.klass.has_value()) {
      a_.classes_[c.klass.index].methods[name] = node;
    } else {
      bind(c, name, BindKind::Function, nullptr, {}, node);
    }

    Scope scope;
    scope.node = node;
    scope.parent = c.scope;
    ScopeId s(static_cast<int32_t>(a_.scopes_.size()));
    a_.scopes_.push_back(std::move(scope));
    a_.calls_by_function_.emplace_back();

    Ctx inner;
    inner.scope = s;
    if (c.klass.has_value() && !is_staticmethod(node)) {
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
      for (std::string_view name : g->names) a_.scopes_[c.scope.index].globals.insert(name);
      return;
    }
    if (const auto* g = as<ast::Nonlocal>(n)) {
      for (std::string_view name : g->names) a_.scopes_[c.scope.index].nonlocals.insert(name);
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
        ast::for_each_child(n, [&](const ast::Node* child) {
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
      case ast::Kind::ClassDef:
        walk_class(as<ast::ClassDef>(n), c, depth);
        return;
      case ast::Kind::Assign:
        walk_assign(as<ast::Assign>(n), c, depth);
        return;
      case ast::Kind::AugAssign:
        walk_aug_assign(as<ast::AugAssign>(n), c, depth);
        return;
      case ast::Kind::AnnAssign:
        walk_ann_assign(as<ast::AnnAssign>(n), c, depth);
        return;
      case ast::Kind::For:
      case ast::Kind::AsyncFor:
        walk_for(n, c, depth);
        return;
      case ast::Kind::withitem:
        walk_withitem(as<ast::withitem>(n), c, depth);
        return;
      case ast::Kind::Import:
        bind_import(as<ast::Import>(n), c);
        return;
      case ast::Kind::ImportFrom:
        bind_import_from(as<ast::ImportFrom>(n), c);
        return;
      case ast::Kind::ExceptHandler: {
        const auto* h = as<ast::ExceptHandler>(n);
        if (!h->name.empty()) bind(c, h->name, BindKind::Other);
        break;  // children below
      }
      case ast::Kind::match_case:
        walk_match_case(as<ast::match_case>(n), c, depth);
        return;
      case ast::Kind::NamedExpr:
        walk_named_expr(as<ast::NamedExpr>(n), c, depth);
        return;
      case ast::Kind::Call: {
        CallSite site{as<ast::Call>(n), c.scope};
        a_.all_calls_.push_back(site);
        a_.calls_by_function_[c.scope.index].push_back(site);
        note_registration(*as<ast::Call>(n), c);
        break;
      }
      case ast::Kind::Global:
      case ast::Kind::Nonlocal:
        return;  // recorded by declare()
      default:
        break;
    }
    ast::for_each_child(n, [&](const ast::Node* child) { walk(child, c, depth + 1); });
  }

  void walk_class(const ast::ClassDef* k, const Ctx& c, int depth) {
    for (const ast::expr* e : k->bases) walk(e, c, depth + 1);
    for (const ast::keyword* e : k->keywords) walk(e, c, depth + 1);
    for (const ast::expr* e : k->decorator_list) walk(e, c, depth + 1);
    ClassId index(static_cast<int32_t>(a_.classes_.size()));
    ClassInfo info;
    info.node = k;
    info.scope = c.scope;
    a_.classes_.push_back(std::move(info));
    a_.class_index_[k] = index;
    bind(c, k->name, BindKind::Class, nullptr, {}, k, index);
    Ctx inner = c;
    inner.klass = index;
    inner.method_class = ClassId();
    inner.self_name = {};
    for (const ast::stmt* st : k->body) walk(st, inner, depth + 1);
  }

  void walk_assign(const ast::Assign* s, const Ctx& c, int depth) {
    walk(s->value, c, depth + 1);
    for (const ast::expr* t : s->targets) bind_target(t, s->value, c, depth + 1);
  }

  void walk_aug_assign(const ast::AugAssign* s, const Ctx& c, int depth) {
    walk(s->value, c, depth + 1);
    if (const auto* name = as<ast::Name>(s->target)) {
      bind(c, name->id, BindKind::Value, nullptr);
    } else {
      walk(s->target, c, depth + 1);
    }
  }

  void walk_ann_assign(const ast::AnnAssign* s, const Ctx& c, int depth) {
    if (s->value) walk(s->value, c, depth + 1);
    walk(s->annotation, c, depth + 1);
    bind_target(s->target, s->value, c, depth + 1);
  }

  void walk_for(const ast::Node* n, const Ctx& c, int depth) {
    const ast::expr* target = nullptr;
    if (const auto* s = as<ast::For>(n)) target = s->target;
    if (const auto* s = as<ast::AsyncFor>(n)) target = s->target;
    bind_target(target, nullptr, c, depth + 1);
    ast::for_each_child(n, [&](const ast::Node* child) {
      if (child != target) walk(child, c, depth + 1);
    });
  }

  void walk_withitem(const ast::withitem* w, const Ctx& c, int depth) {
    walk(w->context_expr, c, depth + 1);
    if (w->optional_vars) bind_target(w->optional_vars, nullptr, c, depth + 1);
  }

  void bind_import(const ast::Import* s, const Ctx& c) {
    for (const ast::alias* al : s->names) {
      if (!al->asname.empty()) {
        bind(c, al->asname, BindKind::Import, nullptr, std::string(al->name));
      } else {
        std::string_view first = al->name.substr(0, al->name.find('.'));
        bind(c, first, BindKind::Import, nullptr, std::string(first));
      }
    }
  }

  void bind_import_from(const ast::ImportFrom* s, const Ctx& c) {
    std::string base(static_cast<size_t>(std::max(0, std::min(s->level, 64))), '.');
    base += s->module;
    for (const ast::alias* al : s->names) {
      if (al->name == "*") continue;
      std::string path = base;
      if (!path.empty() && path.back() != '.') path += '.';
      path += al->name;
      bind(c, al->asname.empty() ? al->name : al->asname, BindKind::Import, nullptr, path);
    }
  }

  void walk_match_case(const ast::match_case* m, const Ctx& c, int depth) {
    bind_pattern(m->pattern, c, depth + 1);
    if (m->guard) walk(m->guard, c, depth + 1);
    for (const ast::stmt* st : m->body) walk(st, c, depth + 1);
  }

  void walk_named_expr(const ast::NamedExpr* w, const Ctx& c, int depth) {
    walk(w->value, c, depth + 1);
    if (const auto* name = as<ast::Name>(w->target)) {
      bind(c, name->id, BindKind::Value, w->value);
    }
  }

  AnalysisImpl& a_;
  bool fresh_ = false;
};

void build_scopes(AnalysisImpl& analysis, const ast::Module& module) {
  ScopeWalker(analysis).run(module);
}

}  // namespace graphmend::sema
