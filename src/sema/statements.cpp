// Statement-list queries: the names a block may assign and whether it mutates state.
#include <algorithm>
#include <iterator>

#include "sema/analysis_impl.h"
#include "sema/helpers.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::as;
using ast::is;

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
  ast::for_each_child(p, [&](const ast::Node* c) { collect_pattern_names(c, out, depth + 1); });
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
    ast::for_each_child(n, [&](const ast::Node* c) { stack.push_back(c); });
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
      ast::for_each_child(s, [&](const ast::Node* c) { collect_walrus(c, out); });
      return;
    default:
      break;
  }
  // nested statement blocks (and except handlers)
  ast::for_each_child(s, [&](const ast::Node* c) {
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
  const Scope* scope = body.empty() ? nullptr : &scopes_[scope_of(body[0]).index];
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

bool is_mode_query(const Callee& callee, const ast::Call& call) {
  static constexpr std::string_view kQueries[] = {
      "torch.is_grad_enabled",       "torch.is_inference_mode_enabled",
      "torch.jit.is_scripting",      "torch.jit.is_tracing",
      "torch.compiler.is_compiling", "torch.compiler.is_dynamo_compiling",
      "torch.compiler.is_exporting"};
  return callee.kind == CalleeKind::TorchFunction && call.args.empty() && call.keywords.empty() &&
         std::find(std::begin(kQueries), std::end(kQueries), callee.qualified_name) !=
             std::end(kQueries);
}

bool ends_in_raise(const ast::Seq<ast::stmt*>& body, std::string_view torch_name) {
  if (body.empty()) return false;
  const ast::stmt* last = body[body.size - 1];
  if (ast::is<ast::Raise>(last)) return true;
  const auto* expression = ast::as<ast::Expr>(last);
  const auto* call = expression ? ast::as<ast::Call>(expression->value) : nullptr;
  const auto* method = call ? ast::as<ast::Attribute>(call->func) : nullptr;
  const auto* module = method ? ast::as<ast::Name>(method->value) : nullptr;
  if (module == nullptr || torch_name.empty() || module->id != torch_name ||
      method->attr != "_assert" || call->args.size < 1)
    return false;
  const auto* flag = ast::as<ast::Constant>(call->args[0]);
  return flag && flag->value.type == ast::ConstantValue::Type::False;
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
          if (is_in_place_method(m)) return true;
          if (has_fact(TorchFact::MutatingMethod, m)) {
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
    ast::for_each_child(n, [&](const ast::Node* c) { stack.push_back(c); });
  }
  return false;
}

}  // namespace graphmend::sema
