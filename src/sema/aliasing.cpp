// Aliasing: see aliasing.h.
#include "sema/aliasing.h"

#include <algorithm>

#include "ast/functions.h"
#include "ast/names.h"
#include "base/contains.h"
#include "sema/helpers.h"
#include "sema/torch_facts.h"

namespace graphmend::sema {

using ast::Kind;

namespace {

// torch.<name>(...) may return (a view of) an argument (torch_facts' ViewFunction).
bool is_view_function(std::string_view qualified_name) {
  constexpr std::string_view kTorch = "torch.";
  if (!starts_with(qualified_name, kTorch)) return false;
  std::string_view name = qualified_name.substr(kTorch.size());
  return name.find('.') == std::string_view::npos && has_fact(TorchFact::ViewFunction, name);
}

// `names` grown by every name the function binds to a value that may share a tensor with
// one of them (`z = y`, `v = preds.view(-1)`), until none is added; `holders` gets those
// bound to a tuple or list display holding one (`outputs = (y,)`), through which a tensor
// changes only by an element (`outputs[0].add_(1)`; `outputs += (a,)` makes a new tuple).
void add_aliases(const Analysis& analysis, const ast::Node* scope,
                 std::set<std::string_view>& names, std::set<std::string_view>& holders) {
  for (size_t before = 0; before != names.size() + holders.size();) {
    before = names.size() + holders.size();
    ast::walk_own_body(scope, [&](const ast::Node* n) {
      const auto* assign = ast::as<ast::Assign>(n);
      if (assign == nullptr || !may_alias(analysis, *assign->value)) return;
      bool reads = false;
      for (const ast::Name* read : ast::loads(assign->value))
        reads |= names.count(read->id) != 0 || holders.count(read->id) != 0;
      if (!reads) return;
      bool display = ast::is<ast::Tuple>(assign->value) || ast::is<ast::List>(assign->value);
      for (const ast::expr* target : assign->targets)
        ast::walk(target, [&](const ast::Node* t) {
          const auto* bound = ast::as<ast::Name>(t);
          if (bound != nullptr && bound->ctx == ast::ExprContext::Store)
            (display && bound == target ? holders : names).insert(bound->id);
          return true;
        });
    });
  }
}

// Whether `value` allocates a new tensor whenever it gives one: arithmetic, a comparison, a
// FreshResult torch function or method (not one that may return its receiver or a view).
bool allocates(const Analysis& analysis, const ast::expr& value) {
  switch (value.kind) {
    case Kind::BinOp:
    case Kind::Compare:
      return true;
    case Kind::UnaryOp:
      return ast::as<ast::UnaryOp>(&value)->op != ast::UnaryOpKind::UAdd;
    case Kind::Call: {
      const auto& call = *ast::as<ast::Call>(&value);
      if (find_keyword(call, "out") != nullptr) return false;
      Speculation* active = analysis.speculate(nullptr);
      Callee callee = analysis.resolve_call(call);
      analysis.speculate(active);
      std::string_view name;
      constexpr std::string_view kTorch = "torch.";
      if (callee.kind == CalleeKind::TorchFunction) {
        // an alias of torch's may resolve with no qualified name: nothing promised then
        if (starts_with(callee.qualified_name, kTorch))
          name = std::string_view(callee.qualified_name).substr(kTorch.size());
      } else if (const auto* method = ast::as<ast::Attribute>(call.func);
                 method != nullptr && callee.kind != CalleeKind::Builtin &&
                 callee.kind != CalleeKind::LocalFunction) {
        name = method->attr;
      }
      return !name.empty() && has_fact(TorchFact::FreshResult, name) &&
             !has_fact(TorchFact::ViewOfReceiver, name);
    }
    default:
      return false;
  }
}

// The names `scope` reads as an operand of a value that allocates (`n` of `n - m`,
// `n.mean()`, `torch.sqrt(n)`): such a read does not pass the tensor on.
std::set<const ast::Name*> operand_reads(const Analysis& analysis, const ast::Node* scope) {
  std::set<const ast::Name*> out;
  auto add = [&](const ast::expr* e) {
    if (const auto* n = ast::as<ast::Name>(e)) out.insert(n);
  };
  ast::walk_own_body(scope, [&](const ast::Node* n) {
    if (const auto* b = ast::as<ast::BinOp>(n)) add(b->left), add(b->right);
    if (const auto* c = ast::as<ast::Compare>(n)) {
      add(c->left);
      for (const ast::expr* right : c->comparators) add(right);
    }
    if (const auto* u = ast::as<ast::UnaryOp>(n); u && allocates(analysis, *u)) add(u->operand);
    if (const auto* c = ast::as<ast::Call>(n); c && allocates(analysis, *c)) {
      if (const auto* method = ast::as<ast::Attribute>(c->func)) add(method->value);
      for (const ast::expr* argument : c->args) add(argument);
    }
  });
  return out;
}

// The function holding `statement` where `name` is its own plain local: not a parameter,
// declared neither global nor nonlocal, read by no nested scope; null otherwise.
const ast::Node* local_scope(const ast::Module& module, const ast::stmt& statement,
                             std::string_view name) {
  const ast::Node* scope = ast::innermost_function(module, statement);
  const auto* def = ast::as<ast::FunctionDef>(scope);
  if (def == nullptr || ast::parameter_named(*def, name) != nullptr) return nullptr;
  size_t own_uses = 0, all_uses = 0;
  bool declared = false;
  ast::walk_own_body(scope, [&](const ast::Node* n) {
    if (const auto* used = ast::as<ast::Name>(n); used && used->id == name) ++own_uses;
    if (const auto* g = ast::as<ast::Global>(n)) declared |= contains(g->names, name);
    if (const auto* g = ast::as<ast::Nonlocal>(n)) declared |= contains(g->names, name);
  });
  ast::walk(scope, [&](const ast::Node* n) {
    if (const auto* used = ast::as<ast::Name>(n); used && used->id == name) ++all_uses;
    return true;
  });
  return declared || own_uses != all_uses ? nullptr : scope;
}

}  // namespace

bool is_sole_holder(const Analysis& analysis, const ast::Module& module, const ast::stmt& statement,
                    const ast::Name& name) {
  const ast::Node* scope = local_scope(module, statement, name.id);
  if (scope == nullptr || contains(analysis.live_after(statement), name.id)) return false;
  const ast::Assign* binding = nullptr;
  size_t bindings = 0;
  ast::walk_own_body(scope, [&](const ast::Node* n) {
    if (const auto* assign = ast::as<ast::Assign>(n); assign && assign->targets.size == 1) {
      const auto* target = ast::as<ast::Name>(assign->targets[0]);
      if (target != nullptr && target->id == name.id) binding = assign;
    }
    if (const auto* used = ast::as<ast::Name>(n); used && used->id == name.id)
      bindings += used->ctx != ast::ExprContext::Load;
  });
  if (bindings != 1 || binding == nullptr || !allocates(analysis, *binding->value)) return false;
  std::set<const ast::Name*> operands = operand_reads(analysis, scope);
  for (const ast::Name* read : ast::loads(scope))
    if (read->id == name.id && read != &name && operands.count(read) == 0) return false;
  return true;
}

const ast::Name* in_place_receiver(const ast::stmt& s) {
  const auto* expr = ast::as<ast::Expr>(&s);
  const auto* call = expr != nullptr ? ast::as<ast::Call>(expr->value) : nullptr;
  const auto* method = call != nullptr ? ast::as<ast::Attribute>(call->func) : nullptr;
  if (method == nullptr || !is_in_place_method(method->attr)) return nullptr;
  return ast::as<ast::Name>(method->value);
}

bool is_fresh_in_place_target(const Analysis& analysis, const ast::Module& module,
                              const ast::stmt& statement, std::string_view name) {
  const ast::Node* scope = local_scope(module, statement, name);
  if (scope == nullptr) return false;
  // in a loop, what follows the if in the loop comes before its next run: up to the end of
  // the outermost loop holding it
  uint32_t end = statement.end;
  std::set<const ast::Name*> receivers, allocated;
  ast::walk_own_body(scope, [&](const ast::Node* n) {
    if ((ast::is<ast::For>(n) || ast::is<ast::While>(n)) && n->begin <= statement.begin &&
        statement.end <= n->end)
      end = std::max(end, n->end);
    if (const auto* assign = ast::as<ast::Assign>(n); assign && assign->targets.size == 1) {
      const auto* target = ast::as<ast::Name>(assign->targets[0]);
      if (target != nullptr && target->id == name && allocates(analysis, *assign->value))
        allocated.insert(target);
    }
    if (const auto* s = ast::as<ast::Expr>(n);
        s && statement.begin <= s->begin && s->end <= statement.end)
      if (const ast::Name* receiver = in_place_receiver(*s)) receivers.insert(receiver);
  });
  std::set<const ast::Name*> operands = operand_reads(analysis, scope);
  bool fresh = true, bound = false;
  ast::walk_own_body(scope, [&](const ast::Node* n) {
    const auto* used = ast::as<ast::Name>(n);
    if (used == nullptr || used->id != name || used->begin >= end) return;
    if (used->ctx != ast::ExprContext::Load) {
      bound |= used->begin < statement.begin;
      fresh &= allocated.count(used) != 0;
    } else {
      fresh &= operands.count(used) != 0 || receivers.count(used) != 0;
    }
  });
  return fresh && bound;
}

bool may_alias(const Analysis& analysis, const ast::expr& value) {
  switch (value.kind) {
    case Kind::Constant:
    case Kind::BinOp:
    case Kind::Compare:
    case Kind::JoinedStr:
    case Kind::ListComp:
    case Kind::Dict:
    case Kind::DictComp:
    case Kind::Set:
    case Kind::SetComp:
      return false;
    case Kind::UnaryOp:
      return ast::as<ast::UnaryOp>(&value)->op == ast::UnaryOpKind::UAdd;
    case Kind::Tuple:
    case Kind::List: {  // holds what its elements may be
      const auto& elements = value.kind == Kind::Tuple ? ast::as<ast::Tuple>(&value)->elts
                                                       : ast::as<ast::List>(&value)->elts;
      return std::any_of(elements.begin(), elements.end(),
                         [&](const ast::expr* e) { return may_alias(analysis, *e); });
    }
    case Kind::Call: {
      const auto& call = *ast::as<ast::Call>(&value);
      // `x.clone()`: a tensor's copy holds nothing another name holds (a receiver of
      // another type is refused at run time: values the rewrite selects are tensors)
      const auto* method = ast::as<ast::Attribute>(call.func);
      if (method != nullptr && method->attr == "clone" && call.args.empty()) return false;
      // what the callee is, as the text shows it: resolving assumes nothing of the receiver
      Speculation* active = analysis.speculate(nullptr);
      Callee callee = analysis.resolve_call(call);
      analysis.speculate(active);
      if (callee.kind == CalleeKind::TorchFunction) return is_view_function(callee.qualified_name);
      return callee.kind != CalleeKind::Builtin;
    }
    default:
      return true;  // names, attributes, subscripts, conditional expressions...
  }
}

bool changes_tensors_in_place(const Analysis& analysis, const ast::Module& module,
                              const ast::stmt& statement, std::set<std::string_view> names) {
  const ast::Node* scope = ast::innermost_function(module, statement);
  std::set<std::string_view> holders;
  add_aliases(analysis, scope, names, holders);
  auto shared = [&](const ast::expr* e) {
    std::string_view root = ast::access_root(e);
    if (root.empty() || names.count(root) != 0) return true;
    return holders.count(root) != 0 && !ast::is<ast::Name>(e);  // an element of one
  };
  bool found = false;
  ast::walk_own_body(scope, [&](const ast::Node* n) {
    if (const auto* update = ast::as<ast::AugAssign>(n)) found |= shared(update->target);
    if (const auto* assign = ast::as<ast::Assign>(n))
      for (const ast::expr* target : assign->targets)
        found |= ast::is<ast::Subscript>(target) && shared(target);
    if (const auto* call = ast::as<ast::Call>(n)) {
      if (const auto* method = ast::as<ast::Attribute>(call->func)) {
        found |= is_in_place_method(method->attr) && shared(method->value);
      }
      for (const ast::keyword* k : call->keywords) found |= k->arg == "out" && shared(k->value);
    }
  });
  return found;
}

}  // namespace graphmend::sema
