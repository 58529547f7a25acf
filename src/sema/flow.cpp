// Control-flow graph of one function (one node per simple statement or compound-statement
// header), reaching definitions (forward) and liveness (backward) over it, and the queries
// answered from them (live_after, live_before, is_definitely_bound_before, ...).
//
// Exceptions: a statement inside `try` may raise before or after its own definitions, so an
// exceptional edge carries both its entry and exit facts to the handlers. `with` bodies may
// have their exceptions suppressed, so they also get an exceptional edge to the statement
// after the `with`. Outside `try`, an exception leaves the function and nothing is live.
#include <algorithm>

#include "sema/analysis_impl.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

int Flow::node_at(uint32_t offset) const {
  auto it = std::upper_bound(regions.begin(), regions.end(), offset,
                             [](uint32_t o, const Region& r) { return o < r.begin; });
  if (it == regions.begin()) return -1;
  --it;
  return offset < it->end ? static_cast<int>(it->node) : -1;
}

namespace {

// Upper bound on one bit matrix (nodes x words): 64 MiB. Larger functions get conservative
// answers instead of quadratic memory.
constexpr size_t kMaxFlowWords = size_t{8} << 20;

bool is_true_constant(const ast::expr* e) {
  const auto* c = as<ast::Constant>(e);
  if (c == nullptr) return false;
  using T = ast::ConstantValue::Type;
  return c->value.type == T::True || (c->value.type == T::Int && c->value.text != "0");
}

}  // namespace

class FlowBuilder {
 public:
  FlowBuilder(const AnalysisImpl& a, Flow& f) : a_(a), f_(f) {}

  void build() {
    const Scope& scope = a_.scopes()[f_.scope.index];
    const ast::Seq<ast::stmt*>* body = nullptr;
    const ast::arguments* args = nullptr;
    if (const auto* m = as<ast::Module>(scope.node)) body = &m->body;
    if (const auto* fn = as<ast::FunctionDef>(scope.node)) body = &fn->body, args = fn->args;
    if (const auto* fn = as<ast::AsyncFunctionDef>(scope.node)) body = &fn->body, args = fn->args;
    if (body == nullptr) return;
    f_.all_live = f_.scope.is_module();

    // Variables: parameters, then names in first-assignment order, then the rest.
    std::vector<const ast::arg*> params;
    if (args != nullptr) {
      for (const ast::arg* p : args->posonlyargs) params.push_back(p);
      for (const ast::arg* p : args->args) params.push_back(p);
      if (args->vararg) params.push_back(args->vararg);
      for (const ast::arg* p : args->kwonlyargs) params.push_back(p);
      if (args->kwarg) params.push_back(args->kwarg);
    }
    for (const ast::arg* p : params) add_var(p->arg);
    for (std::string_view name : a_.assigned_names(*body)) {
      if (scope.bindings.count(name)) add_var(name);
    }
    std::vector<std::string_view> rest;
    for (const auto& entry : scope.bindings) {
      if (!f_.var_ids.count(entry.first)) rest.push_back(entry.first);
    }
    std::sort(rest.begin(), rest.end());
    for (std::string_view name : rest) add_var(name);

    f_.exit = new_node(-1);
    Ctx ctx;
    ctx.ret = f_.exit;
    uint32_t first = build_seq(*body, f_.exit, ctx);
    f_.entry = new_node(-1);
    f_.nodes[f_.entry].succ.push_back(first);
    std::vector<bool> is_param(f_.var_names.size(), false);
    for (const ast::arg* p : params) {
      uint32_t v = f_.var_ids.at(p->arg);
      is_param[v] = true;
      add_def(v, f_.entry, Def::Source::Param, nullptr, p);
    }
    for (uint32_t v = 0; v < f_.var_names.size(); ++v) {
      if (!is_param[v]) add_def(v, f_.entry, Def::Source::Unbound, nullptr, nullptr);
    }
    std::sort(f_.regions.begin(), f_.regions.end(),
              [](const Region& x, const Region& y) { return x.begin < y.begin; });
    solve_liveness();
    solve_reaching();
  }

 private:
  struct Ctx {
    uint32_t ret = 0;
    uint32_t brk = UINT32_MAX;
    uint32_t cont = UINT32_MAX;
    int exc = -1;
  };

  uint32_t add_var(std::string_view name) {
    auto [it, inserted] = f_.var_ids.try_emplace(name, static_cast<uint32_t>(f_.var_names.size()));
    if (inserted) {
      f_.var_names.push_back(name);
      f_.defs_of_var.emplace_back();
      f_.captured.push_back(false);
    }
    return it->second;
  }

  int var_of(std::string_view name) const {
    auto it = f_.var_ids.find(name);
    return it == f_.var_ids.end() ? -1 : static_cast<int>(it->second);
  }

  uint32_t new_node(int exc) {
    uint32_t id = static_cast<uint32_t>(f_.nodes.size());
    f_.nodes.emplace_back();
    f_.nodes[id].exc = exc;
    return id;
  }

  int exc_list(std::vector<uint32_t> targets) {
    f_.exc_lists.push_back(std::move(targets));
    return static_cast<int>(f_.exc_lists.size()) - 1;
  }

  void region(const ast::Node* n, uint32_t node) {
    if (n != nullptr && n->begin < n->end) f_.regions.push_back({n->begin, n->end, node});
  }

  void add_def(uint32_t var, uint32_t node, Def::Source source, const ast::expr* value,
               const ast::Node* origin, int index = 0, bool weak = false) {
    Def d;
    d.var = var;
    d.node = node;
    d.source = source;
    d.value = value;
    d.origin = origin;
    d.index = index;
    uint32_t id = static_cast<uint32_t>(f_.defs.size());
    f_.defs.push_back(d);
    weak_.push_back(weak);
    f_.defs_of_var[var].push_back(id);
    f_.nodes[node].defs.push_back(id);
  }

  void use(std::string_view name, uint32_t node) {
    int v = var_of(name);
    if (v >= 0) f_.nodes[node].uses.push_back(static_cast<uint32_t>(v));
  }

  // Reads of an expression tree evaluated at `node`. Names read inside nested functions,
  // lambdas and class bodies are also captured (live for as long as the closure may run).
  void uses_of(const ast::Node* root, uint32_t node) {
    if (root == nullptr) return;
    std::vector<std::pair<const ast::Node*, bool>> stack{{root, false}};
    while (!stack.empty()) {
      auto [n, nested] = stack.back();
      stack.pop_back();
      switch (n->kind) {
        case ast::Kind::Name: {
          const auto* name = as<ast::Name>(n);
          if (name->id == "locals" || name->id == "vars" || name->id == "exec" ||
              name->id == "eval") {
            if (var_of(name->id) < 0) f_.all_live = true;
          }
          int v = var_of(name->id);
          if (v < 0) break;
          if (nested) f_.captured[v] = true;
          if (name->ctx != ast::ExprContext::Store || nested) {
            f_.nodes[node].uses.push_back(static_cast<uint32_t>(v));
          }
          break;
        }
        case ast::Kind::NamedExpr: {
          const auto* w = as<ast::NamedExpr>(n);
          stack.push_back({w->value, nested});
          if (const auto* t = as<ast::Name>(w->target); t && !nested) {
            int v = var_of(t->id);
            if (v >= 0)
              add_def(static_cast<uint32_t>(v), node, Def::Source::Value, w->value, w, 0,
                      /*weak=*/true);
          }
          break;
        }
        case ast::Kind::Lambda:
        case ast::Kind::FunctionDef:
        case ast::Kind::AsyncFunctionDef:
        case ast::Kind::ClassDef:
          ast::for_each_child(n, [&](const ast::Node* c) { stack.push_back({c, true}); });
          break;
        default:
          // An init-capture: clang before 16 cannot capture a structured binding.
          ast::for_each_child(n, [&, nested = nested](const ast::Node* c) {
            stack.push_back({c, nested});
          });
          break;
      }
    }
  }

  void def_target(const ast::expr* t, const ast::expr* value, uint32_t node, int depth,
                  Def::Source unpack_source = Def::Source::Unpack, int index = -1) {
    if (t == nullptr || depth > 64) return;
    switch (t->kind) {
      case ast::Kind::Name: {
        int v = var_of(as<ast::Name>(t)->id);
        if (v < 0) return;
        if (depth == 0) {
          add_def(static_cast<uint32_t>(v), node, value ? Def::Source::Value : Def::Source::Other,
                  value, t);
        } else {
          add_def(static_cast<uint32_t>(v), node, index >= 0 ? unpack_source : Def::Source::Other,
                  value, t, index);
        }
        return;
      }
      case ast::Kind::Tuple:
      case ast::Kind::List: {
        const ast::Seq<ast::expr*>& elts =
            t->kind == ast::Kind::Tuple ? as<ast::Tuple>(t)->elts : as<ast::List>(t)->elts;
        bool starred = false;
        for (const ast::expr* e : elts) starred |= is<ast::Starred>(e);
        for (uint32_t i = 0; i < elts.size; ++i) {
          bool direct = depth == 0 && !starred && value != nullptr;
          def_target(elts[i], direct ? value : nullptr, node, depth + 1, unpack_source,
                     direct ? static_cast<int>(i) : -1);
        }
        return;
      }
      case ast::Kind::Starred:
        def_target(as<ast::Starred>(t)->value, nullptr, node, depth + 1);
        return;
      default:
        uses_of(t, node);  // attribute/subscript targets read their base and index
        return;
    }
  }

  uint32_t simple(const ast::stmt* s, uint32_t next, const Ctx& c) {
    uint32_t n = new_node(c.exc);
    f_.nodes[n].succ.push_back(next);
    region(s, n);
    return n;
  }

  uint32_t build_seq(const ast::Seq<ast::stmt*>& body, uint32_t next, const Ctx& c) {
    for (uint32_t i = body.size; i-- > 0;) next = build_stmt(body[i], next, c);
    return next;
  }

  uint32_t build_stmt(const ast::stmt* s, uint32_t next, const Ctx& c) {
    f_.after[s] = next;
    uint32_t entry = build_stmt_inner(s, next, c);
    f_.entry_of[s] = entry;
    return entry;
  }

  uint32_t build_stmt_inner(const ast::stmt* s, uint32_t next, const Ctx& c) {
    switch (s->kind) {
      case ast::Kind::Assign:
        return build_assign(as<ast::Assign>(s), next, c);
      case ast::Kind::AugAssign:
        return build_aug_assign(as<ast::AugAssign>(s), next, c);
      case ast::Kind::AnnAssign:
        return build_ann_assign(as<ast::AnnAssign>(s), next, c);
      case ast::Kind::Delete:
        return build_delete(as<ast::Delete>(s), next, c);
      case ast::Kind::Return:
        return build_return(as<ast::Return>(s), c);
      case ast::Kind::Raise:
        return build_raise(as<ast::Raise>(s), c);
      case ast::Kind::Break:
      case ast::Kind::Continue:
        return build_jump(s, next, c);
      case ast::Kind::Pass:
      case ast::Kind::Global:
      case ast::Kind::Nonlocal:
        return next;
      case ast::Kind::Import:
      case ast::Kind::ImportFrom:
        return build_import(s, next, c);
      case ast::Kind::FunctionDef:
      case ast::Kind::AsyncFunctionDef:
      case ast::Kind::ClassDef:
        return build_def(s, next, c);
      case ast::Kind::If:
        return build_if(as<ast::If>(s), next, c);
      case ast::Kind::While:
        return build_while(as<ast::While>(s), next, c);
      case ast::Kind::For:
      case ast::Kind::AsyncFor:
        return build_for(s, next, c);
      case ast::Kind::With:
      case ast::Kind::AsyncWith:
        return build_with(s, next, c);
      case ast::Kind::Try:
      case ast::Kind::TryStar:
        return build_try_stmt(s, next, c);
      case ast::Kind::Match:
        return build_match(as<ast::Match>(s), next, c);
      default: {  // Expr, Assert, TypeAlias
        uint32_t n = simple(s, next, c);
        uses_of(s, n);
        return n;
      }
    }
  }

  uint32_t build_assign(const ast::Assign* a, uint32_t next, const Ctx& c) {
    uint32_t n = simple(a, next, c);
    uses_of(a->value, n);
    for (const ast::expr* t : a->targets) def_target(t, a->value, n, 0);
    return n;
  }

  uint32_t build_aug_assign(const ast::AugAssign* a, uint32_t next, const Ctx& c) {
    uint32_t n = simple(a, next, c);
    uses_of(a->value, n);
    if (const auto* name = as<ast::Name>(a->target)) {
      int v = var_of(name->id);
      if (v >= 0) {
        use(name->id, n);
        add_def(static_cast<uint32_t>(v), n, Def::Source::AugAssign, a->value, a);
      }
    } else {
      uses_of(a->target, n);
    }
    return n;
  }

  uint32_t build_ann_assign(const ast::AnnAssign* a, uint32_t next, const Ctx& c) {
    uint32_t n = simple(a, next, c);
    if (a->value) {
      uses_of(a->value, n);
      def_target(a->target, a->value, n, 0);
    } else if (!is<ast::Name>(a->target)) {
      uses_of(a->target, n);
    }
    return n;
  }

  uint32_t build_delete(const ast::Delete* s, uint32_t next, const Ctx& c) {
    uint32_t n = simple(s, next, c);
    for (const ast::expr* t : s->targets) {
      if (const auto* name = as<ast::Name>(t)) {
        int v = var_of(name->id);
        if (v >= 0) {
          use(name->id, n);
          add_def(static_cast<uint32_t>(v), n, Def::Source::Unbound, nullptr, t);
        }
      } else {
        uses_of(t, n);
      }
    }
    return n;
  }

  uint32_t build_return(const ast::Return* s, const Ctx& c) {
    uint32_t n = new_node(c.exc);
    f_.nodes[n].succ.push_back(c.ret);
    region(s, n);
    uses_of(s->value, n);
    return n;
  }

  uint32_t build_raise(const ast::Raise* r, const Ctx& c) {
    uint32_t n = new_node(-1);
    region(r, n);
    if (c.exc >= 0) {
      f_.nodes[n].succ = f_.exc_lists[c.exc];
    } else {
      f_.nodes[n].succ.push_back(f_.exit);
    }
    uses_of(r->exc, n);
    uses_of(r->cause, n);
    return n;
  }

  // break / continue
  uint32_t build_jump(const ast::stmt* s, uint32_t next, const Ctx& c) {
    uint32_t target = s->kind == ast::Kind::Break ? c.brk : c.cont;
    if (target == UINT32_MAX) target = next;  // outside a loop: a syntax error anyway
    uint32_t n = new_node(-1);
    f_.nodes[n].succ.push_back(target);
    region(s, n);
    return n;
  }

  uint32_t build_import(const ast::stmt* s, uint32_t next, const Ctx& c) {
    uint32_t n = simple(s, next, c);
    std::vector<std::string_view> names;
    if (const auto* i = as<ast::Import>(s)) {
      for (const ast::alias* al : i->names) {
        names.push_back(!al->asname.empty() ? al->asname : al->name.substr(0, al->name.find('.')));
      }
    } else {
      for (const ast::alias* al : as<ast::ImportFrom>(s)->names) {
        if (al->name != "*") names.push_back(!al->asname.empty() ? al->asname : al->name);
      }
    }
    for (std::string_view name : names) {
      int v = var_of(name);
      if (v >= 0) add_def(static_cast<uint32_t>(v), n, Def::Source::Other, nullptr, s);
    }
    return n;
  }

  // def / async def / class: decorators, defaults and the binding of the name.
  uint32_t build_def(const ast::stmt* s, uint32_t next, const Ctx& c) {
    uint32_t n = simple(s, next, c);
    std::string_view name;
    const ast::Seq<ast::expr*>* decorators = nullptr;
    if (const auto* f = as<ast::FunctionDef>(s)) name = f->name, decorators = &f->decorator_list;
    if (const auto* f = as<ast::AsyncFunctionDef>(s)) {
      name = f->name, decorators = &f->decorator_list;
    }
    if (const auto* k = as<ast::ClassDef>(s)) name = k->name, decorators = &k->decorator_list;
    for (const ast::expr* d : *decorators) {
      uses_of(d, n);
      region(d, n);
    }
    // defaults and annotations are evaluated here; the body only captures
    ast::for_each_child(s, [&](const ast::Node* child) {
      if (child->kind == ast::Kind::arguments) {
        const auto* args = as<ast::arguments>(child);
        for (const ast::expr* e : args->defaults) uses_of(e, n);
        for (const ast::expr* e : args->kw_defaults) {
          if (e) uses_of(e, n);
        }
      }
    });
    capture_body(s, n);
    int v = var_of(name);
    if (v >= 0) add_def(static_cast<uint32_t>(v), n, Def::Source::Other, nullptr, s);
    return n;
  }

  uint32_t build_while(const ast::While* w, uint32_t next, const Ctx& c) {
    uint32_t head = new_node(c.exc);
    region(w->test, head);
    uses_of(w->test, head);
    Ctx inner = c;
    inner.brk = next;
    inner.cont = head;
    uint32_t body = build_seq(w->body, head, inner);
    uint32_t orelse = build_seq(w->orelse, next, c);
    f_.nodes[head].succ.push_back(body);
    if (!is_true_constant(w->test)) f_.nodes[head].succ.push_back(orelse);
    return head;
  }

  uint32_t build_for(const ast::stmt* s, uint32_t next, const Ctx& c) {
    const ast::expr* target;
    const ast::expr* iter;
    const ast::Seq<ast::stmt*>* body;
    const ast::Seq<ast::stmt*>* orelse;
    if (const auto* f = as<ast::For>(s)) {
      target = f->target, iter = f->iter, body = &f->body, orelse = &f->orelse;
    } else {
      const auto* g = as<ast::AsyncFor>(s);
      target = g->target, iter = g->iter, body = &g->body, orelse = &g->orelse;
    }
    uint32_t head = new_node(-1);
    uint32_t assign = new_node(c.exc);
    region(target, assign);
    if (const auto* name = as<ast::Name>(target)) {
      int v = var_of(name->id);
      if (v >= 0) add_def(static_cast<uint32_t>(v), assign, Def::Source::ForTarget, iter, target);
    } else {
      def_target(target, nullptr, assign, 0);
    }
    Ctx inner = c;
    inner.brk = next;
    inner.cont = head;
    uint32_t body_entry = build_seq(*body, head, inner);
    f_.nodes[assign].succ.push_back(body_entry);
    uint32_t else_entry = build_seq(*orelse, next, c);
    f_.nodes[head].succ = {assign, else_entry};
    uint32_t eval = new_node(c.exc);
    region(iter, eval);
    uses_of(iter, eval);
    f_.nodes[eval].succ.push_back(head);
    return eval;
  }

  // Whether every item is a call of a context manager that never swallows an exception
  // (torch_facts' PlainContext: `with torch.no_grad():`), so a binding in the body is made
  // on every path that leaves the with statement normally.
  bool plain_contexts(const ast::Seq<ast::withitem*>& items) const {
    for (const ast::withitem* w : items) {
      const auto* call = as<ast::Call>(w->context_expr);
      if (call == nullptr || !has_fact(TorchFact::PlainContext, a_.qualify(call->func, f_.scope)))
        return false;
    }
    return true;
  }

  uint32_t build_with(const ast::stmt* s, uint32_t next, const Ctx& c) {
    const ast::Seq<ast::withitem*>& items =
        s->kind == ast::Kind::With ? as<ast::With>(s)->items : as<ast::AsyncWith>(s)->items;
    const ast::Seq<ast::stmt*>& body =
        s->kind == ast::Kind::With ? as<ast::With>(s)->body : as<ast::AsyncWith>(s)->body;
    std::vector<uint32_t> targets = c.exc >= 0 ? f_.exc_lists[c.exc] : std::vector<uint32_t>{};
    if (!plain_contexts(items)) targets.push_back(next);  // __exit__ may swallow the exception
    Ctx inner = c;
    inner.exc = exc_list(std::move(targets));
    uint32_t body_entry = build_seq(body, next, inner);
    uint32_t n = new_node(c.exc);
    f_.nodes[n].succ.push_back(body_entry);
    for (const ast::withitem* w : items) {
      region(w, n);
      uses_of(w->context_expr, n);
      if (w->optional_vars) def_target(w->optional_vars, nullptr, n, 1);
    }
    return n;
  }

  uint32_t build_try_stmt(const ast::stmt* s, uint32_t next, const Ctx& c) {
    const ast::Seq<ast::stmt*>* body;
    const ast::Seq<ast::excepthandler*>* handlers;
    const ast::Seq<ast::stmt*>* orelse;
    const ast::Seq<ast::stmt*>* finalbody;
    if (const auto* t = as<ast::Try>(s)) {
      body = &t->body, handlers = &t->handlers, orelse = &t->orelse, finalbody = &t->finalbody;
    } else {
      const auto* u = as<ast::TryStar>(s);
      body = &u->body, handlers = &u->handlers, orelse = &u->orelse, finalbody = &u->finalbody;
    }
    return build_try(*body, *handlers, *orelse, *finalbody, next, c);
  }

  uint32_t build_match(const ast::Match* m, uint32_t next, const Ctx& c) {
    uint32_t no_match = next;
    for (uint32_t i = m->cases.size; i-- > 0;) {
      const ast::match_case* mc = m->cases[i];
      uint32_t body_entry = build_seq(mc->body, next, c);
      uint32_t n = new_node(c.exc);
      region(mc->pattern, n);
      if (mc->guard) region(mc->guard, n);
      pattern_uses_and_defs(mc->pattern, n);
      uses_of(mc->guard, n);
      f_.nodes[n].succ = {body_entry, no_match};
      no_match = n;
    }
    uint32_t subject = new_node(c.exc);
    region(m->subject, subject);
    uses_of(m->subject, subject);
    f_.nodes[subject].succ.push_back(no_match);
    return subject;
  }

  void pattern_uses_and_defs(const ast::Node* p, uint32_t node) {
    std::vector<const ast::Node*> stack{p};
    while (!stack.empty()) {
      const ast::Node* x = stack.back();
      stack.pop_back();
      if (x == nullptr) continue;
      std::string_view bound;
      if (const auto* m = as<ast::MatchAs>(x)) bound = m->name;
      if (const auto* m = as<ast::MatchStar>(x)) bound = m->name;
      if (const auto* m = as<ast::MatchMapping>(x)) bound = m->rest;
      if (!bound.empty()) {
        int v = var_of(bound);
        // a pattern may fail after binding part of its names: weak definitions
        if (v >= 0)
          add_def(static_cast<uint32_t>(v), node, Def::Source::Other, nullptr, x, 0, true);
      }
      if (const auto* mv = as<ast::MatchValue>(x)) {
        uses_of(mv->value, node);
        continue;
      }
      if (const auto* mc = as<ast::MatchClass>(x)) uses_of(mc->cls, node);
      if (const auto* mm = as<ast::MatchMapping>(x)) {
        for (const ast::expr* k : mm->keys) uses_of(k, node);
      }
      ast::for_each_child(x, [&](const ast::Node* c) {
        if (c->kind >= ast::Kind::MatchValue && c->kind <= ast::Kind::MatchOr) stack.push_back(c);
      });
    }
  }

  // The names a nested function binds itself (parameters, assignments), less those it
  // declares nonlocal: they are its own variables, not the enclosing function's.
  std::vector<std::string_view> own_names(const ast::arguments* args,
                                          const ast::Seq<ast::stmt*>& body) const {
    std::vector<std::string_view> own = a_.assigned_names(body);
    for (const auto* list : {&args->posonlyargs, &args->args, &args->kwonlyargs})
      for (const ast::arg* p : *list) own.push_back(p->arg);
    if (args->vararg) own.push_back(args->vararg->arg);
    if (args->kwarg) own.push_back(args->kwarg->arg);
    std::vector<const ast::Node*> stack(body.begin(), body.end());
    while (!stack.empty()) {
      const ast::Node* n = stack.back();
      stack.pop_back();
      if (const auto* declared = as<ast::Nonlocal>(n)) {
        for (std::string_view name : declared->names)
          own.erase(std::remove(own.begin(), own.end(), name), own.end());
      }
      if (is<ast::FunctionDef>(n) || is<ast::AsyncFunctionDef>(n) || is<ast::ClassDef>(n)) continue;
      ast::for_each_child(n, [&](const ast::Node* c) { stack.push_back(c); });
    }
    return own;
  }

  // Names a nested def or class reads are captured by it.
  void capture_body(const ast::stmt* s, uint32_t node) {
    std::vector<const ast::Node*> stack;
    auto push_body = [&](const ast::Seq<ast::stmt*>& body) {
      for (const ast::stmt* b : body) stack.push_back(b);
    };
    std::vector<std::string_view> own;
    if (const auto* f = as<ast::FunctionDef>(s))
      push_body(f->body), own = own_names(f->args, f->body);
    if (const auto* f = as<ast::AsyncFunctionDef>(s))
      push_body(f->body), own = own_names(f->args, f->body);
    bool is_class = false;
    if (const auto* k = as<ast::ClassDef>(s)) push_body(k->body), is_class = true;
    while (!stack.empty()) {
      const ast::Node* n = stack.back();
      stack.pop_back();
      if (const auto* name = as<ast::Name>(n)) {
        int v = var_of(name->id);
        if (v >= 0 && std::find(own.begin(), own.end(), name->id) == own.end()) {
          f_.captured[v] = true;
          if (is_class) f_.nodes[node].uses.push_back(static_cast<uint32_t>(v));
        }
        continue;
      }
      ast::for_each_child(n, [&](const ast::Node* c) { stack.push_back(c); });
    }
  }

  uint32_t build_if(const ast::If* first, uint32_t next, const Ctx& c) {
    // An elif chain is built from its last link back, without recursion per link.
    std::vector<const ast::If*> chain{first};
    while (chain.back()->orelse.size == 1 && is<ast::If>(chain.back()->orelse[0])) {
      chain.push_back(as<ast::If>(chain.back()->orelse[0]));
    }
    uint32_t else_entry = build_seq(chain.back()->orelse, next, c);
    for (size_t k = chain.size(); k-- > 0;) {
      const ast::If* s = chain[k];
      if (k > 0) f_.after[s] = next;
      uint32_t body_entry = build_seq(s->body, next, c);
      uint32_t test = new_node(c.exc);
      region(s->test, test);
      uses_of(s->test, test);
      f_.nodes[test].succ = {body_entry, else_entry};
      if (k > 0) f_.entry_of[s] = test;
      else_entry = test;
    }
    return else_entry;
  }

  uint32_t build_try(const ast::Seq<ast::stmt*>& body,
                     const ast::Seq<ast::excepthandler*>& handlers,
                     const ast::Seq<ast::stmt*>& orelse, const ast::Seq<ast::stmt*>& finalbody,
                     uint32_t next, const Ctx& c) {
    std::vector<uint32_t> outer_exc =
        c.exc >= 0 ? f_.exc_lists[c.exc] : std::vector<uint32_t>{f_.exit};
    uint32_t cont = next;
    Ctx inner = c;
    if (!finalbody.empty()) {
      uint32_t fout = new_node(-1);
      auto& succ = f_.nodes[fout].succ;
      succ.push_back(next);
      succ.push_back(c.ret);
      if (c.brk != UINT32_MAX) succ.push_back(c.brk);
      if (c.cont != UINT32_MAX) succ.push_back(c.cont);
      for (uint32_t t : outer_exc) succ.push_back(t);
      uint32_t fin = build_seq(finalbody, fout, c);
      cont = fin;
      inner.ret = fin;
      if (c.brk != UINT32_MAX) inner.brk = fin;
      if (c.cont != UINT32_MAX) inner.cont = fin;
      inner.exc = exc_list({fin});
    }
    std::vector<uint32_t> inner_exc =
        inner.exc >= 0 ? f_.exc_lists[inner.exc] : std::vector<uint32_t>{f_.exit};
    std::vector<uint32_t> dispatch_succ;
    bool catch_all = false;
    for (const ast::excepthandler* eh : handlers) {
      const auto* h = as<ast::ExceptHandler>(eh);
      if (h == nullptr) continue;
      uint32_t body_entry = build_seq(h->body, cont, inner);
      uint32_t n = new_node(inner.exc);
      region(h->type, n);
      uses_of(h->type, n);
      if (h->type == nullptr) catch_all = true;
      if (!h->name.empty()) {
        int v = var_of(h->name);
        if (v >= 0) add_def(static_cast<uint32_t>(v), n, Def::Source::Other, nullptr, h);
      }
      f_.nodes[n].succ.push_back(body_entry);
      dispatch_succ.push_back(n);
    }
    if (!catch_all) {
      for (uint32_t t : inner_exc) dispatch_succ.push_back(t);
    }
    uint32_t else_entry = build_seq(orelse, cont, inner);
    Ctx body_ctx = inner;
    if (!handlers.empty()) {
      uint32_t dispatch = new_node(-1);
      f_.nodes[dispatch].succ = dispatch_succ;
      body_ctx.exc = exc_list({dispatch});
    }
    uint32_t body_entry = build_seq(body, else_entry, body_ctx);
    // an empty node in front, so the statement has an entry even when the body is `pass`
    uint32_t head = new_node(-1);
    f_.nodes[head].succ.push_back(body_entry);
    if (body_ctx.exc >= 0) {
      for (uint32_t t : f_.exc_lists[body_ctx.exc]) f_.nodes[head].succ.push_back(t);
    }
    return head;
  }

  void solve_liveness() {
    size_t n = f_.nodes.size();
    size_t w = std::max<size_t>(1, (f_.var_names.size() + 63) / 64);
    f_.var_words = w;
    if (n * w > kMaxFlowWords) {  // everything is live: conservative
      f_.all_live = true;
      return;
    }
    f_.live_in.assign(n * w, 0);
    if (f_.scope.is_module()) {  // module globals outlive the module body
      for (uint32_t v = 0; v < f_.var_names.size(); ++v) {
        f_.live_in[f_.exit * w + (v >> 6)] |= uint64_t{1} << (v & 63);
      }
    }
    std::vector<uint64_t> out(w);
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t i = 0; i < n; ++i) {
        if (i == f_.exit) continue;
        const FlowNode& node = f_.nodes[i];
        std::fill(out.begin(), out.end(), 0);
        for (uint32_t s : node.succ) {
          for (size_t k = 0; k < w; ++k) out[k] |= f_.live_in[s * w + k];
        }
        for (uint32_t d : node.defs) {
          if (weak_[d]) continue;
          uint32_t v = f_.defs[d].var;
          out[v >> 6] &= ~(uint64_t{1} << (v & 63));
        }
        for (uint32_t v : node.uses) out[v >> 6] |= uint64_t{1} << (v & 63);
        if (node.exc >= 0) {
          for (uint32_t t : f_.exc_lists[node.exc]) {
            for (size_t k = 0; k < w; ++k) out[k] |= f_.live_in[t * w + k];
          }
        }
        uint64_t* in = &f_.live_in[i * w];
        for (size_t k = 0; k < w; ++k) {
          uint64_t merged = in[k] | out[k];  // monotone: facts only grow
          if (merged != in[k]) {
            in[k] = merged;
            changed = true;
          }
        }
      }
    }
  }

  void solve_reaching() {
    size_t n = f_.nodes.size();
    size_t w = std::max<size_t>(1, (f_.defs.size() + 63) / 64);
    f_.def_words = w;
    if (n * w > kMaxFlowWords) return;  // every definition reaches everywhere (reaches())
    f_.reach_in.assign(n * w, 0);
    std::vector<uint64_t> out(w);
    std::vector<uint64_t> both(w);
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t i = static_cast<uint32_t>(n); i-- > 0;) {
        const FlowNode& node = f_.nodes[i];
        const uint64_t* in = &f_.reach_in[i * w];
        std::copy(in, in + w, out.begin());
        for (uint32_t d : node.defs) {
          uint32_t v = f_.defs[d].var;
          if (!weak_[d]) {
            for (uint32_t k : f_.defs_of_var[v]) out[k >> 6] &= ~(uint64_t{1} << (k & 63));
          }
        }
        for (uint32_t d : node.defs) out[d >> 6] |= uint64_t{1} << (d & 63);
        auto merge = [&](uint32_t target, const std::vector<uint64_t>& facts) {
          uint64_t* t = &f_.reach_in[target * w];
          for (size_t k = 0; k < w; ++k) {
            uint64_t merged = t[k] | facts[k];
            if (merged != t[k]) {
              t[k] = merged;
              changed = true;
            }
          }
        };
        for (uint32_t s : node.succ) merge(s, out);
        if (node.exc >= 0) {
          for (size_t k = 0; k < w; ++k) both[k] = in[k] | out[k];
          for (uint32_t t : f_.exc_lists[node.exc]) merge(t, both);
        }
      }
    }
  }

  const AnalysisImpl& a_;
  Flow& f_;
  std::vector<bool> weak_;
};

std::unique_ptr<Flow> build_flow(const AnalysisImpl& analysis, ScopeId scope) {
  auto flow = std::make_unique<Flow>();
  flow->scope = scope;
  FlowBuilder(analysis, *flow).build();
  if (flow->nodes.empty()) {  // not a function: an empty, well-formed flow
    flow->nodes.emplace_back();
    flow->var_words = flow->def_words = 1;
    flow->live_in.assign(1, 0);
    flow->reach_in.assign(1, 0);
  }
  return flow;
}

// ---------------------------------------------------------------------------------------------
// Flow-based queries

Flow* AnalysisImpl::flow_for_scope(ScopeId scope) const {
  if (!scope.has_value() || static_cast<size_t>(scope.index) >= flows_.size()) return nullptr;
  std::unique_ptr<Flow>& flow = flows_[scope.index];
  if (!flow) flow = build_flow(*this, scope);
  return flow.get();
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

std::vector<const Def*> AnalysisImpl::reaching_defs(const ast::Name& name, ScopeId scope) const {
  Flow* flow = flow_for_scope(scope);
  if (flow == nullptr) return {};
  auto var = flow->var_ids.find(name.id);
  int node = flow->node_at(name.begin);
  if (var == flow->var_ids.end() || node < 0) return {};
  std::vector<const Def*> out;
  for (uint32_t d : flow->defs_of_var[var->second])
    if (flow->reaches(d, static_cast<uint32_t>(node))) out.push_back(&flow->defs[d]);
  return out;
}

std::vector<const Def*> AnalysisImpl::defs_before(const ast::stmt& statement,
                                                  std::string_view name) const {
  Flow* flow = flow_for_scope(scope_of(&statement));
  if (flow == nullptr) return {};
  auto var = flow->var_ids.find(name);
  auto node = flow->entry_of.find(&statement);
  if (var == flow->var_ids.end() || node == flow->entry_of.end()) return {};
  std::vector<const Def*> out;
  for (uint32_t d : flow->defs_of_var[var->second])
    if (flow->reaches(d, node->second)) out.push_back(&flow->defs[d]);
  return out;
}

bool AnalysisImpl::is_definitely_bound_before(const ast::stmt& statement,
                                              std::string_view name) const {
  std::vector<const Def*> defs = defs_before(statement, name);
  return !defs.empty() && std::none_of(defs.begin(), defs.end(), [](const Def* def) {
    return def->source == Def::Source::Unbound;
  });
}

bool AnalysisImpl::is_tensor_before(const ast::stmt& statement, std::string_view name) const {
  if (!is_definitely_bound_before(statement, name)) return false;
  Flow* flow = flow_for_scope(scope_of(&statement));
  uint32_t node = flow->entry_of.at(&statement);
  bool any = false;
  return is_tensor_kind(join_defs(*flow, flow->var_ids.at(name), node, &any));
}

}  // namespace graphmend::sema
